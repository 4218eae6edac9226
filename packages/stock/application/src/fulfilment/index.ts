export { type FulfilmentSettings } from './fulfilment-settings';
export * from './get-return';
export * from './get-shipment';
export * from './list-returns';
export * from './list-shipments';
export * from './receive-return';
export * from './ship-order';
export * from './shipped-of-order';
