export * from './errors';
export * from './order';
export * from './ports/order-repository';
export * from './ports/product-catalog';
export * from './ports/sales-transaction';
export * from './order-snapshot';
