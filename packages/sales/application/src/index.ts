export * from './cancel-order';
export * from './get-order';
export * from './handle-stock-event';
export * from './list-orders';
export * from './options';
export * from './order-record';
export * from './pay-order';
export * from './place-order';
