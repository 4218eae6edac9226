export * from './in-memory-database';
export * from './in-memory-idempotency-records';
export * from './in-memory-outbox';
