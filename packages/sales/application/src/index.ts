export * from './options';
export * from './orders/cancel-order';
export * from './orders/get-order';
export * from './orders/list-orders';
export * from './orders/order-record';
export * from './orders/place-order';
export * from './payments/pay-order';
export * from './stock-events/handle-stock-event';
