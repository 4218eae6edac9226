export * from './errors';
export * from './money';
export * from './ports/product-repository';
export * from './ports/stock-transaction';
export * from './product';
export * from './stock';
