export * from './orders/mikro-orm-order-repository';
export * from './mikro-orm-sales-unit-of-work';
export * from './sales-database';
