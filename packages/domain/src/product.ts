import { type FieldErrors, ValidationError } from './errors';
import { Money } from './money';

export const INT32_MAX = 2_147_483_647;
export const NAME_MAX_LENGTH = 200;
export const DESCRIPTION_MAX_LENGTH = 2000;

/** What a client may set on a product: everything but its id. */
export interface ProductDetails {
  readonly name: string;
  readonly description: string;
  readonly price: Money;
  readonly quantityInStock: number;
}

export function isProductId(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= INT32_MAX;
}

/** PostgreSQL text cannot hold U+0000: refused everywhere, so every adapter answers the same. */
export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/** Whether a text has more than `max` characters (code points), without copying it: most texts decide on .length alone. */
export function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false; // a code point is one or two UTF-16 units
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    if (++count > max) return true;
  }
  return false;
}

/**
 * One rule per field, each answering why a value breaks it (or undefined).
 * The HTTP codecs call the same rules, so a 400 lists every broken field at once.
 */
export const productRules = {
  name(value: string): string | undefined {
    if (value.includes('\u0000')) return NUL_MESSAGE;
    const trimmed = value.trim();
    if (trimmed.length === 0) return 'is required and must not be blank';
    if (longerThan(trimmed, NAME_MAX_LENGTH)) return `must be at most ${NAME_MAX_LENGTH} characters`;
    return undefined;
  },
  description(value: string): string | undefined {
    if (value.includes('\u0000')) return NUL_MESSAGE;
    return longerThan(value, DESCRIPTION_MAX_LENGTH) ? `must be at most ${DESCRIPTION_MAX_LENGTH} characters` : undefined;
  },
  quantityInStock(value: number): string | undefined {
    if (!Number.isInteger(value)) return 'must be an integer';
    if (value < 0) return 'must not be negative';
    if (value > INT32_MAX) return `must be at most ${INT32_MAX}`;
    return undefined;
  },
};

/** Checks every invariant and answers the normalised details (name trimmed), or throws ValidationError. */
export function validateProductDetails(details: ProductDetails): ProductDetails {
  const name = productRules.name(details.name);
  const description = productRules.description(details.description);
  const quantityInStock = productRules.quantityInStock(details.quantityInStock);
  if (name || description || quantityInStock) {
    const errors: FieldErrors = {};
    if (name) errors.name = [name];
    if (description) errors.description = [description];
    if (quantityInStock) errors.quantityInStock = [quantityInStock];
    throw new ValidationError(errors);
  }
  return { ...details, name: details.name.trim() };
}

export class Product implements ProductDetails {
  readonly name: string;
  readonly description: string;
  readonly price: Money;
  readonly quantityInStock: number;

  private constructor(
    readonly id: number,
    details: ProductDetails,
    /** Starts at 1 and grows with every write: the product's ETag. */
    readonly version: number,
  ) {
    this.name = details.name;
    this.description = details.description;
    this.price = details.price;
    this.quantityInStock = details.quantityInStock;
  }

  /** A product about to be stored: its details are checked again, so no adapter can store a broken one. */
  static of(id: number, details: ProductDetails, version: number): Product {
    if (!isProductId(id)) throw new RangeError(`Not a product id: ${id}`);
    if (!Number.isSafeInteger(version) || version < 1) throw new RangeError(`Not a product version: ${version}`);
    return new Product(id, validateProductDetails(details), version);
  }

  /**
   * A product read back from storage, which only ever received validated
   * details (and whose constraints hold the bounds): not checked again, since a
   * page of reads would otherwise re-validate every row.
   */
  static restore(id: number, details: ProductDetails, version: number): Product {
    return new Product(id, details, version);
  }

  get details(): ProductDetails {
    const { name, description, price, quantityInStock } = this;
    return { name, description, price, quantityInStock };
  }
}
