export * from './errors';
export * from './idempotency';
export * from './unit-of-work';
export * from './single-call';
export * from './unavailable';
export * from './clock';
export * from './outbox';
export * from './time-ordered-id';
