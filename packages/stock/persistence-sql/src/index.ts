export * from './catalogue-seed';
export * from './product-search-sql';
export * from './render-condition';
export * from './sql-location-repository';
export * from './sql-product-repository';
export * from './sql-reservation-repository';
export * from './sql-stock-movement-repository';
export * from './sql-transfer-repository';
export * from './sql-unit-of-work';
export * from './stock-database';
export * from './stock/sql-product-stock-repository';
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
