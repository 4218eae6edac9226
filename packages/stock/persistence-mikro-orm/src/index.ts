export * from './mikro-orm-product-repository';
export * from './mikro-orm-reservation-repository';
export * from './mikro-orm-stock-movement-repository';
export * from './mikro-orm-unit-of-work';
export * from './stock-database';
export * from './write-context';
