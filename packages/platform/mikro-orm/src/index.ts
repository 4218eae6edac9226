export * from './database';
export * from './database-url';
export * from './idempotency-key-schema';
export * from './mikro-orm-idempotency-records';
export * from './sql-session';
export * from './database-errors';
export * from './time-of';
