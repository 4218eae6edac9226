export * from './money';
export * from './order-lines';
export * from './product-id';
