export * from './provider-process';
export * from './stripe-schemas';
export * from './webhook-receiver';
