/** The shared value types this domain's model is made of, for its adapters to take with the rest of it. */
export { INT32_MAX } from '@platform/kernel';
export { isProductId, Money } from '@commerce/shared-kernel';
export * from './errors';
export * from './location';
export * from './ports/location-repository';
export * from './ports/product-repository';
export * from './ports/stock-level-repository';
export * from './ports/transfer-repository';
export * from './stock-levels';
export * from './ports/reservation-repository';
export * from './ports/stock-movement-repository';
export * from './ports/stock-transaction';
export * from './product';
export * from './stock';
export * from './stock-rules';
export * from './reservation';
export * from './stock-movement';
