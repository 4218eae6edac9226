import { DomainError, type IdempotencyKeyReusedError, type ValidationError } from '@platform/kernel';

/** Every code the stock domain and its use cases can fail with; the HTTP adapter maps each to a status. */
export type StockErrorCode = ValidationError['code'] | IdempotencyKeyReusedError['code'] | 'PRODUCT_NOT_FOUND' | 'INSUFFICIENT_STOCK' | 'STOCK_LIMIT_EXCEEDED' | 'VERSION_MISMATCH';

export class ProductNotFoundError extends DomainError<'PRODUCT_NOT_FOUND'> {
  readonly code = 'PRODUCT_NOT_FOUND';

  constructor(readonly productId: number) {
    super(`Product ${productId} does not exist.`);
  }
}

export class InsufficientStockError extends DomainError<'INSUFFICIENT_STOCK'> {
  readonly code = 'INSUFFICIENT_STOCK';

  constructor(
    readonly productId: number,
    readonly available: number,
    readonly delta: number,
  ) {
    super(`Product ${productId} has ${available} in stock; an adjustment of ${delta} would take it below 0.`);
  }
}

export class StockLimitExceededError extends DomainError<'STOCK_LIMIT_EXCEEDED'> {
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
export class VersionMismatchError extends DomainError<'VERSION_MISMATCH'> {
  readonly code = 'VERSION_MISMATCH';

  constructor(
    readonly productId: number,
    readonly currentVersion: number,
  ) {
    super(`Product ${productId} has changed since that version was read (it is now at version ${currentVersion}).`);
  }
}
