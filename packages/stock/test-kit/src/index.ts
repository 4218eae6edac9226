export * from './builders';
export * from './idempotency-contract';
export * from './repository-contract';
export * from './stock-rules-contract';
export * from './stock-store';
export * from './unit-of-work-contract';
export * from './ledger';
