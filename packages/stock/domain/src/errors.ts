import { DomainError, type IdempotencyKeyReusedError, type ValidationError } from '@platform/kernel';

/** Every code the stock domain and its use cases can fail with; the HTTP adapter maps each to a status. */
export type StockErrorCode = ValidationError['code'] | IdempotencyKeyReusedError['code'] | 'PRODUCT_NOT_FOUND' | 'INSUFFICIENT_STOCK' | 'STOCK_LIMIT_EXCEEDED' | 'VERSION_MISMATCH';

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

export class InsufficientStockError extends StockError<'INSUFFICIENT_STOCK'> {
  readonly code = 'INSUFFICIENT_STOCK';

  constructor(
    readonly productId: number,
    readonly available: number,
    readonly delta: number,
  ) {
    super(`Product ${productId} has ${available} in stock; an adjustment of ${delta} would take it below 0.`);
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
