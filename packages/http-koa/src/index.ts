export * from './create-stock-app';
export type { Logger } from './logger';
export * from './problem';
export * from './product-codec';
export * from './product-json';
export { type ProductUseCases, productsRouter } from './products-router';
export * from './request-error';
