export * from './client-credentials';
export * from './http-product-catalog';
export * from './resilient-json-client';
