export * from './orders/in-memory-order-repository';
export * from './in-memory-sales-store';
