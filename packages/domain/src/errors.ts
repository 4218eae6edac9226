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
