import { problemsFor } from '@platform/http';
import {
  BackorderNotFilledError,
  DefaultLocationError,
  InsufficientStockError,
  LocationCodeTakenError,
  LocationNotEmptyError,
  LocationNotFoundError,
  OrderNotShippableError,
  ReservationNotHeldError,
  ReturnExceedsShippedError,
  ShipmentExceedsCommittedError,
  StockAtSeveralLocationsError,
  type StockErrorCode,
  StockLimitExceededError,
  StockShortageError,
  StockStateShortError,
  TransferNotInTransitError,
  SkuTakenError,
  UnknownProductsError,
} from '@stock/domain';

/** The one table from the stock error codes to HTTP statuses: a code without a status does not compile. */
export const STATUS_BY_CODE: Readonly<Record<StockErrorCode, number>> = {
  VALIDATION_FAILED: 400,
  PRODUCT_NOT_FOUND: 404,
  UNKNOWN_PRODUCTS: 404,
  RESERVATION_NOT_FOUND: 404,
  LOCATION_NOT_FOUND: 404,
  TRANSFER_NOT_FOUND: 404,
  SHIPMENT_NOT_FOUND: 404,
  RETURN_NOT_FOUND: 404,
  INSUFFICIENT_STOCK: 409,
  STOCK_LIMIT_EXCEEDED: 409,
  PRODUCT_RESERVED: 409,
  RESERVATION_NOT_HELD: 409,
  LOCATION_CODE_TAKEN: 409,
  LOCATION_NOT_EMPTY: 409,
  DEFAULT_LOCATION: 409,
  STOCK_AT_SEVERAL_LOCATIONS: 409,
  BACKORDER_NOT_FILLED: 409,
  TRANSFER_NOT_IN_TRANSIT: 409,
  SKU_TAKEN: 409,
  ORDER_NOT_SHIPPABLE: 409,
  SHIPMENT_EXCEEDS_COMMITTED: 409,
  RETURN_EXCEEDS_SHIPPED: 409,
  VERSION_MISMATCH: 412,
  IDEMPOTENCY_KEY_REUSED: 422,
};

/**
 * The problem for each stock error, with the members its type defines: what is available, what is short, which ids,
 * which status.
 */
export const toProblem = problemsFor(STATUS_BY_CODE, (error) => {
  // What could be taken out; and of which state, when another than available.
  if (error instanceof InsufficientStockError)
    return error.state === 'available'
      ? { available: error.available }
      : { available: error.available, state: error.state };
  if (error instanceof StockLimitExceededError) return { available: error.available };
  // What the state held there: nothing moved.
  if (error instanceof StockStateShortError) return { available: error.available, state: error.from };
  if (error instanceof StockShortageError) return { shortages: error.shortages };
  if (error instanceof UnknownProductsError) return { productIds: error.productIds };
  if (error instanceof ReservationNotHeldError) return { reservationStatus: error.status };
  if (
    error instanceof LocationNotFoundError ||
    error instanceof LocationNotEmptyError ||
    error instanceof DefaultLocationError
  )
    return { locationId: error.locationId };
  if (error instanceof LocationCodeTakenError) return { locationCode: error.locationCode };
  // Where to go instead: the adjustments, which name a location.
  if (error instanceof StockAtSeveralLocationsError)
    return { productId: error.productId, adjustments: `/api/products/${error.productId}/stock-adjustments` };
  if (error instanceof BackorderNotFilledError)
    return { productId: error.productId, backorderedQuantity: error.backordered };
  if (error instanceof TransferNotInTransitError) return { transferStatus: error.status };
  if (error instanceof SkuTakenError) return { sku: error.sku };
  if (error instanceof OrderNotShippableError) return { orderId: error.orderId };
  // What can still ship of the products asked, and where; what can still come back of them.
  if (error instanceof ShipmentExceedsCommittedError) return { orderId: error.orderId, shippable: error.shippable };
  if (error instanceof ReturnExceedsShippedError) return { orderId: error.orderId, returnable: error.returnable };
  return undefined;
});
