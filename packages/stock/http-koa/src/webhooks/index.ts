export * from './subscription-codec';
export * from './webhook-subscriptions-router';
