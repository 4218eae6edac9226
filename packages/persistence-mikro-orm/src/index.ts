export * from './database-url';
export * from './mikro-orm-idempotency-store';
export * from './mikro-orm-persistence';
export * from './mikro-orm-product-repository';
export type { Dialect, ProductRow } from './product-schema';
