export * from './fixed-catalog';
export * from './order-repository-contract';
export * from './sales-store';
