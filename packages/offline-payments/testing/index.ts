export * from './stripe-schemas';
export * from './webhook-receiver';
