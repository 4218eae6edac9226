export * from './stock-database';
export * from './sql-unit-of-work';
export * from './stock/render-condition';
export * from './stock/sql-product-stock-repository';
export * from './products/catalogue-seed';
export * from './products/product-search-sql';
export * from './products/sql-product-repository';
export * from './reservations/sql-reservation-repository';
export * from './locations/sql-location-repository';
export * from './transfers/sql-transfer-repository';
export * from './fulfilment/sql-shipment-repository';
export * from './fulfilment/sql-return-repository';
export * from './ledger/sql-stock-movement-repository';
export {
  AVAILABLE_SQL,
  PRODUCT_NAMES,
  type ProductStatements,
  productStatements,
  STOCK_STATE_SQL,
} from './tables/product';
export { stockEntities } from './tables/stock-tables';
// What the bench's raw baselines send, so that they send exactly the service's statements (tools/bench).
export { ADJUST_AT_ONCE, ADJUST_AT_ONCE_ROUTINE } from './stock/adjust-at-once';
export {
  ADD_PRODUCT,
  ADD_PRODUCTS,
  REPLACE_AT_ONCE,
  SAVE_STOCK,
  SQLITE_ADD_PRODUCT,
  SQLITE_LOCK,
  SQLITE_SAVE,
} from './stock/product-stock-statements';
export { LEVEL_STATEMENTS } from './tables/stock-level';
export { MOVEMENT_STATEMENTS, type MovementValues } from './tables/stock-movement';
export * from './webhooks/index';
