export * from './webhook-events';
export * from './safe-target';
export * from './secret-box';
export * from './signing';
export * from './webhook-delivery';
export * from './webhook-sender';
export * from './webhook-subscriptions';
