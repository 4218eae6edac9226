export * from './create-stock-app';
export { type ProductUseCases, productsRouter } from './products-router';
