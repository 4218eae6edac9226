export * from './create-sales-app';
export * from './order-json';
export { type OrderUseCases, ordersRouter } from './orders-router';
export { STATUS_BY_CODE, toProblem } from './problem';
