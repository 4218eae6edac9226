export * from './builders';
export * from './postgres-scratch';
export * from './repository-contract';
export * from './idempotency-contract';
