import { DomainError, type IdempotencyKeyReusedError, type ValidationError } from '@platform/kernel';
import type { UnitState } from './stock/levels';

/** Every code the stock domain and its use cases can fail with; the HTTP adapter maps each to a status. */
export type StockErrorCode =
  | ValidationError['code']
  | IdempotencyKeyReusedError['code']
  | 'PRODUCT_NOT_FOUND'
  | 'UNKNOWN_PRODUCTS'
  | 'PRODUCT_RESERVED'
  | 'INSUFFICIENT_STOCK'
  | 'STOCK_LIMIT_EXCEEDED'
  | 'VERSION_MISMATCH'
  | 'RESERVATION_NOT_FOUND'
  | 'RESERVATION_NOT_HELD'
  | 'LOCATION_NOT_FOUND'
  | 'LOCATION_CODE_TAKEN'
  | 'LOCATION_NOT_EMPTY'
  | 'DEFAULT_LOCATION'
  | 'STOCK_AT_SEVERAL_LOCATIONS'
  | 'BACKORDER_NOT_FILLED'
  | 'TRANSFER_NOT_FOUND'
  | 'TRANSFER_NOT_IN_TRANSIT'
  | 'SKU_TAKEN'
  | 'ORDER_NOT_SHIPPABLE'
  | 'SHIPMENT_EXCEEDS_COMMITTED'
  | 'SHIPMENT_NOT_FOUND'
  | 'RETURN_EXCEEDS_SHIPPED'
  | 'RETURN_NOT_FOUND';

/**
 * The base of every stock error: its code must be one of StockErrorCode, and
 * every StockErrorCode needs a status in the HTTP adapter's table, so a new
 * error cannot reach a client as a 500 by accident.
 */
export abstract class StockError<Code extends StockErrorCode> extends DomainError<Code> {}

export class ProductNotFoundError extends StockError<'PRODUCT_NOT_FOUND'> {
  readonly code = 'PRODUCT_NOT_FOUND';

  constructor(readonly productId: number) {
    super(`Product ${productId} does not exist.`);
  }
}

/** Several product ids that do not exist, named together. */
export class UnknownProductsError extends StockError<'UNKNOWN_PRODUCTS'> {
  readonly code = 'UNKNOWN_PRODUCTS';

  constructor(readonly productIds: readonly number[]) {
    super(`No product has the id${productIds.length > 1 ? 's' : ''} ${productIds.join(', ')}.`);
  }
}

/** A product whose stock reservations hold cannot be deleted: those reservations would lose their stock. */
export class ProductReservedError extends StockError<'PRODUCT_RESERVED'> {
  readonly code = 'PRODUCT_RESERVED';

  constructor(
    readonly productId: number,
    readonly reservedQuantity: number,
  ) {
    super(`Product ${productId} has ${reservedQuantity} held by reservations; release or commit them first.`);
  }
}

export class InsufficientStockError extends StockError<'INSUFFICIENT_STOCK'> {
  readonly code = 'INSUFFICIENT_STOCK';

  constructor(
    readonly productId: number,
    /** What could be taken out: the stock in no set-aside state, or the units in `state` when one is named. */
    readonly available: number,
    readonly delta: number,
    /** The state the change took units out of (available unless told). */
    readonly state: UnitState = 'available',
  ) {
    super(
      state === 'available'
        ? `Product ${productId} has ${available} available; a change of ${delta} would take its stock below what is held or below 0.`
        : `Product ${productId} has ${available} ${state} there; a change of ${delta} would take them below 0.`,
    );
  }
}

/** A state change asks more units than its `from` state holds at the location: nothing moved. */
export class StockStateShortError extends StockError<'INSUFFICIENT_STOCK'> {
  readonly code = 'INSUFFICIENT_STOCK';

  constructor(
    readonly productId: number,
    readonly from: UnitState,
    /** How many units `from` holds there: what could have moved. */
    readonly available: number,
    readonly quantity: number,
  ) {
    super(`Product ${productId} has ${available} ${from} there; ${quantity} cannot move out of it.`);
  }
}

export interface Shortage {
  readonly productId: number;
  readonly requested: number;
  readonly available: number;
}

/** A reservation that cannot hold every line: nothing was held. */
export class StockShortageError extends StockError<'INSUFFICIENT_STOCK'> {
  readonly code = 'INSUFFICIENT_STOCK';

  constructor(readonly shortages: readonly Shortage[]) {
    super(
      `Not enough stock for ${shortages.map((s) => `product ${s.productId} (${s.requested} requested, ${s.available} available)`).join(', ')}; nothing was held.`,
    );
  }
}

export class StockLimitExceededError extends StockError<'STOCK_LIMIT_EXCEEDED'> {
  readonly code = 'STOCK_LIMIT_EXCEEDED';

  constructor(
    readonly productId: number,
    readonly available: number,
    readonly delta: number,
  ) {
    super(`Product ${productId} has ${available} in stock; an adjustment of ${delta} would take it above 2147483647.`);
  }
}

/** A conditional write (If-Match) found the product at another version than the client last saw. */
export class VersionMismatchError extends StockError<'VERSION_MISMATCH'> {
  readonly code = 'VERSION_MISMATCH';

  constructor(
    readonly productId: number,
    readonly currentVersion: number,
  ) {
    super(`Product ${productId} has changed since that version was read (it is now at version ${currentVersion}).`);
  }
}

export class ReservationNotFoundError extends StockError<'RESERVATION_NOT_FOUND'> {
  readonly code = 'RESERVATION_NOT_FOUND';

  constructor(readonly reservationId: string) {
    super(`Reservation ${reservationId} does not exist.`);
  }
}

/** Committing a released or expired reservation, or releasing a committed one. */
export class ReservationNotHeldError extends StockError<'RESERVATION_NOT_HELD'> {
  readonly code = 'RESERVATION_NOT_HELD';

  constructor(
    readonly reservationId: string,
    readonly status: string,
  ) {
    super(`Reservation ${reservationId} is ${status}, not held.`);
  }
}

export class LocationNotFoundError extends StockError<'LOCATION_NOT_FOUND'> {
  readonly code = 'LOCATION_NOT_FOUND';

  constructor(readonly locationId: number) {
    super(`Location ${locationId} does not exist.`);
  }
}

export class LocationCodeTakenError extends StockError<'LOCATION_CODE_TAKEN'> {
  readonly code = 'LOCATION_CODE_TAKEN';

  constructor(readonly locationCode: string) {
    super(`A location with the code '${locationCode}' exists already.`);
  }
}

/** A location some product has stock, holds or incoming units at: removing it would lose them. */
export class LocationNotEmptyError extends StockError<'LOCATION_NOT_EMPTY'> {
  readonly code = 'LOCATION_NOT_EMPTY';

  constructor(readonly locationId: number) {
    super(`Location ${locationId} holds stock, holds or incoming units; move or adjust them out first.`);
  }
}

/** The default location is where clients that know nothing of locations keep their stock: it stays. */
export class DefaultLocationError extends StockError<'DEFAULT_LOCATION'> {
  readonly code = 'DEFAULT_LOCATION';

  constructor(readonly locationId: number) {
    super(`Location ${locationId} is the default location, which is never removed.`);
  }
}

/** A PUT that sets quantityInStock of a product that has stock at more than the default location. */
export class StockAtSeveralLocationsError extends StockError<'STOCK_AT_SEVERAL_LOCATIONS'> {
  readonly code = 'STOCK_AT_SEVERAL_LOCATIONS';

  constructor(readonly productId: number) {
    super(
      `Product ${productId} has stock at more than the default location: change it with POST /api/products/${productId}/stock-adjustments and a locationId.`,
    );
  }
}

/** Committing a hold some of whose units are backordered and have not arrived. */
export class BackorderNotFilledError extends StockError<'BACKORDER_NOT_FILLED'> {
  readonly code = 'BACKORDER_NOT_FILLED';

  constructor(
    readonly reservationId: string,
    readonly productId: number,
    readonly backordered: number,
  ) {
    super(
      `Reservation ${reservationId} still waits for ${backordered} backordered unit(s) of product ${productId}; it can be committed once stock arrives.`,
    );
  }
}

export class TransferNotFoundError extends StockError<'TRANSFER_NOT_FOUND'> {
  readonly code = 'TRANSFER_NOT_FOUND';

  constructor(readonly transferId: string) {
    super(`Stock transfer ${transferId} does not exist.`);
  }
}

/** Receiving a cancelled transfer, or cancelling a received one. */
export class TransferNotInTransitError extends StockError<'TRANSFER_NOT_IN_TRANSIT'> {
  readonly code = 'TRANSFER_NOT_IN_TRANSIT';

  constructor(
    readonly transferId: string,
    readonly status: string,
  ) {
    super(`Stock transfer ${transferId} is ${status}, not in transit.`);
  }
}

/** Another product has this SKU (whatever the case of its letters): a SKU names one product. */
export class SkuTakenError extends StockError<'SKU_TAKEN'> {
  readonly code = 'SKU_TAKEN';

  constructor(readonly sku: string) {
    super(`Another product has the SKU '${sku}' (SKUs are compared ignoring case).`);
  }
}
