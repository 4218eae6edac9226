export * from './in-memory-product-repository';
export * from './in-memory-stock-store';
