export * from './mikro-orm-product-repository';
export * from './mikro-orm-unit-of-work';
export * from './stock-database';
