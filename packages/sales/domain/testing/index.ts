export * from './fixed-catalog';
export * from './order-repository-contract';
export * from './sales-store';
export * from './payments';
export * from './fake-payment-provider';
