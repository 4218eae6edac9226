export * from './create-sales-app';
export * from './orders/order-json';
export { type OrderUseCases, ordersRouter } from './orders/orders-router';
export { STATUS_BY_CODE, toProblem } from './problem';
export * from './payments/payment-events-router';
export * from './payments/payment-metrics';
