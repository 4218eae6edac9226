/** Field name → human-readable messages, as answered in a 400's `errors` object. */
export type FieldErrors = Record<string, string[]>;

/** A failure the domain names. `code` is stable: adapters map it, clients may switch on it. */
export abstract class DomainError extends Error {
  abstract readonly code: string;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class ProductNotFoundError extends DomainError {
  readonly code = 'PRODUCT_NOT_FOUND';

  constructor(readonly productId: number) {
    super(`Product ${productId} does not exist.`);
  }
}

export class ValidationError extends DomainError {
  readonly code = 'VALIDATION_FAILED';

  constructor(readonly errors: FieldErrors) {
    super('One or more fields are invalid.');
  }
}

export class InsufficientStockError extends DomainError {
  readonly code = 'INSUFFICIENT_STOCK';

  constructor(
    readonly productId: number,
    readonly available: number,
    readonly delta: number,
  ) {
    super(`Product ${productId} has ${available} in stock; an adjustment of ${delta} would take it below 0.`);
  }
}

export class StockLimitExceededError extends DomainError {
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
export class VersionMismatchError extends DomainError {
  readonly code = 'VERSION_MISMATCH';

  constructor(
    readonly productId: number,
    readonly currentVersion: number,
  ) {
    super(`Product ${productId} has changed since that version was read (it is now at version ${currentVersion}).`);
  }
}

/** An idempotency key used again for a different request. */
export class IdempotencyKeyReusedError extends DomainError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED';

  constructor(readonly key: string) {
    super(`The idempotency key "${key}" was already used for a different request.`);
  }
}
