export * from './catalog/product-catalog';
export * from './errors';
export * from './orders/order';
export * from './orders/order-repository';
export * from './orders/order-snapshot';
export * from './payments/order-payment';
export * from './payments/payment-provider';
export * from './sales-transaction';
