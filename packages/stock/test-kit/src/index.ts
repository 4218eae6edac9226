export * from './builders';
export * from './idempotency-contract';
export * from './repository-contract';
export * from './reservation-contract';
export * from './stock-store';
export * from './unit-of-work-contract';
export * from './use-case-contract';
