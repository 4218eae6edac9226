export * from './fulfilment-errors';
export {
  FULFILMENT_MAX_LINES,
  fulfilmentFields,
  RETURN_REASON_MAX_LENGTH,
  SHIPMENT_NOTE_MAX_LENGTH,
  type UnitsAt,
} from './fulfilment-fields';
export * from './order-fulfilment';
export * from './return-repository';
export * from './shipment';
export * from './shipment-repository';
export * from './stock-return';
