export * from './in-memory-product-repository';
