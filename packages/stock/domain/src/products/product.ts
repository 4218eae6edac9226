import { isProductId, Money } from '@commerce/shared-kernel';
import { type FieldErrors, INT32_MAX, Invalid, type Parser, ValidationError } from '@platform/kernel';
import { evaluate, holds, type Values } from '../stock/condition';
import { AVAILABLE, type ProductName, STOCK_STATE } from '../stock/rules';

export const NAME_MAX_LENGTH = 200;
export const SKU_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const DESCRIPTION_MAX_LENGTH = 2000;

/**
 * Whether a text has more than `max` characters (code points), without copying it: most texts decide on .length alone.
 */
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
 * A text of at most `max` characters that every store keeps as it is: PostgreSQL
 * text cannot hold U+0000, and a lone surrogate has no UTF-8 form, so each
 * store would replace it differently (and a read-back could outgrow `max`).
 */
export function text(max: number): Parser<string, string> {
  return (value) => {
    if (value.includes('\u0000')) return new Invalid('must not contain the NUL character (U+0000)');
    if (!value.isWellFormed()) return new Invalid('must be well-formed Unicode (it has a lone surrogate)');
    return longerThan(value, max) ? new Invalid(`must be at most ${max} characters`) : value;
  };
}

/** A count of items: an integer from 0 to 2147483647. */
export function quantity(value: number): number | Invalid {
  if (!Number.isInteger(value)) return new Invalid('must be an integer');
  if (value < 0) return new Invalid('must not be negative');
  if (value > INT32_MAX) return new Invalid(`must be at most ${INT32_MAX}`);
  return value;
}

const description = text(DESCRIPTION_MAX_LENGTH);
const nameText = text(NAME_MAX_LENGTH);

/** The rule of each product field, each answering the value to keep or why it is refused. */
export const productFields = {
  name: (value: string): string | Invalid => {
    const trimmed = value.trim();
    return trimmed.length === 0 ? new Invalid('is required and must not be blank') : nameText(trimmed);
  },
  description,
  price: Money.parse,
  quantityInStock: quantity,
  /** How many units holds that allow it may take beyond what is available, all such holds together. */
  backorderLimit: quantity,
  /** Below this many available the product is low on stock; 0 turns the alert off. */
  lowStockThreshold: quantity,
  /** The merchant's stock-keeping unit: unique whatever the case of its letters. */
  sku: (value: string): string | Invalid => {
    return SKU_PATTERN.test(value)
      ? value
      : new Invalid('must be 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" and "-"');
  },
};

export interface ProductDetailsInput {
  readonly name: string;
  readonly description: string;
  readonly price: Money;
  readonly quantityInStock: number;
  /** Absent: 0 for a new product, unchanged for an update (a client that knows nothing of it keeps it). */
  readonly backorderLimit?: number;
  /** Absent: 0 for a new product, unchanged for an update. */
  readonly lowStockThreshold?: number;
  /** Absent: none for a new product, unchanged for an update; null removes it. */
  readonly sku?: string | null;
}

/** Whether a product is in stock, low (0 < available < its threshold) or out (nothing available). */
export type StockState = 'in' | 'low' | 'out';

/** The parsed fields, or one ValidationError naming every field that failed: `allValid`, answering, not throwing. */
function validFields<T extends object>(fields: { readonly [K in keyof T]: T[K] | Invalid }): T | ValidationError {
  const errors: FieldErrors = {};
  for (const [name, value] of Object.entries(fields)) if (value instanceof Invalid) errors[name] = [value.message];
  return Object.keys(errors).length > 0 ? new ValidationError(errors) : (fields as T);
}

/** What a client may set on a product: everything but its id. Only `create` makes one, so every instance is valid. */
export class ProductDetails implements ProductDetailsInput {
  private constructor(
    readonly name: string,
    readonly description: string,
    readonly price: Money,
    readonly quantityInStock: number,
    readonly backorderLimit: number | undefined,
    readonly lowStockThreshold: number | undefined,
    /** Undefined: left as it is (none on a new product); null: none. */
    readonly sku: string | null | undefined,
  ) {}

  /**
   * Checks every field and answers the details (name trimmed), or throws one ValidationError naming every broken field.
   */
  static create(input: ProductDetailsInput): ProductDetails {
    const details = ProductDetails.check(input);
    if (details instanceof ValidationError) throw details;
    return details;
  }

  /**
   * As `create`, answering the ValidationError instead of throwing it: for a caller that reports a refusal as a value
   * (an import's row).
   */
  static check(input: ProductDetailsInput): ProductDetails | ValidationError {
    const fields = validFields({
      name: productFields.name(input.name),
      description: productFields.description(input.description),
      quantityInStock: productFields.quantityInStock(input.quantityInStock),
      backorderLimit:
        input.backorderLimit === undefined ? undefined : productFields.backorderLimit(input.backorderLimit),
      lowStockThreshold:
        input.lowStockThreshold === undefined ? undefined : productFields.lowStockThreshold(input.lowStockThreshold),
      sku: input.sku == null ? input.sku : productFields.sku(input.sku),
    });
    if (fields instanceof ValidationError) return fields;
    const { name, description, quantityInStock, backorderLimit, lowStockThreshold, sku } = fields;
    return new ProductDetails(name, description, input.price, quantityInStock, backorderLimit, lowStockThreshold, sku);
  }

  /**
   * Details read back from storage, which only ever received created ones (and
   * whose constraints hold the bounds): not checked again, since a page of
   * reads would otherwise re-check every row.
   */
  static restore(input: ProductDetailsInput): ProductDetails {
    return new ProductDetails(
      input.name,
      input.description,
      input.price,
      input.quantityInStock,
      input.backorderLimit,
      input.lowStockThreshold,
      input.sku,
    );
  }

  /** The same details with another stock, which the caller has kept within 0..STOCK_MAX. */
  withQuantityInStock(quantityInStock: number): ProductDetails {
    if (quantity(quantityInStock) instanceof Invalid) throw new RangeError(`Not a stock quantity: ${quantityInStock}`);
    const { name, description, price, backorderLimit, lowStockThreshold, sku } = this;
    return new ProductDetails(name, description, price, quantityInStock, backorderLimit, lowStockThreshold, sku);
  }

  /** These details with each setting the update left out taken from `current` (what the product has now). */
  keepingSettingsOf(current: ProductSettings): ProductDetails {
    const { name, description, price, quantityInStock } = this;
    return new ProductDetails(
      name,
      description,
      price,
      quantityInStock,
      this.backorderLimit ?? current.backorderLimit,
      this.lowStockThreshold ?? current.lowStockThreshold,
      this.sku === undefined ? current.sku : this.sku,
    );
  }
}

/** A product's stock settings, as it has them (0 when never set). */
export interface ProductSettings {
  readonly backorderLimit: number;
  readonly lowStockThreshold: number;
  readonly sku: string | null;
}

/**
 * What a product's stock is besides its stock and reserved units: its units in the other set-aside states (the sums
 * of its levels'), the units held beyond stock, and whether it is alerted as low.
 */
export interface ProductStockState {
  /** Held for paid orders until they ship. */
  readonly committedQuantity: number;
  /** Waiting for a decision (inspection), not sellable. */
  readonly qualityControlQuantity: number;
  /** Not sellable until written off. */
  readonly damagedQuantity: number;
  /** Units holds took beyond what was available (allowBackorder), waiting for stock: never above backorderLimit. */
  readonly backorderedQuantity: number;
  /** Whether the last stock.level event said low (and no restored followed): what decides the next one. */
  readonly lowStockAlert: boolean;
}

/** The stock state of a product nothing has set aside, backordered or alerted. */
export const NOTHING_SET_ASIDE: ProductStockState = {
  committedQuantity: 0,
  qualityControlQuantity: 0,
  damagedQuantity: 0,
  backorderedQuantity: 0,
  lowStockAlert: false,
};

const SET_ASIDE_TOTALS = [
  'committedQuantity',
  'qualityControlQuantity',
  'damagedQuantity',
  'backorderedQuantity',
] as const;

/** What a product's stock state is called (STOCK_STATE), at what it has available (AVAILABLE). */
export function stockStateOf(product: Values<ProductName>): StockState {
  const state = { available: evaluate(AVAILABLE, product), lowStockThreshold: product.lowStockThreshold };
  if (holds(STOCK_STATE.out, state)) return 'out';
  return holds(STOCK_STATE.low, state) ? 'low' : 'in';
}

export class Product implements ProductDetailsInput {
  private constructor(
    readonly id: number,
    readonly details: ProductDetails,
    /** Starts at 1 and grows with every write: the product's ETag. */
    readonly version: number,
    /** Held by open reservations at the locations: never below 0; with the other set-aside states, within stock. */
    readonly reservedQuantity: number,
    readonly stock: ProductStockState,
  ) {}

  static of(
    id: number,
    details: ProductDetails,
    version: number,
    reservedQuantity = 0,
    stock: ProductStockState = NOTHING_SET_ASIDE,
  ): Product {
    if (!isProductId(id)) throw new RangeError(`Not a product id: ${id}`);
    if (!Number.isSafeInteger(version) || version < 1) throw new RangeError(`Not a product version: ${version}`);
    if (!Number.isInteger(reservedQuantity) || reservedQuantity < 0)
      throw new RangeError(`Not a reserved quantity: ${reservedQuantity}`);
    for (const total of SET_ASIDE_TOTALS)
      if (!Number.isInteger(stock[total]) || stock[total] < 0) throw new RangeError(`Not a ${total}: ${stock[total]}`);
    const setAside = reservedQuantity + stock.committedQuantity + stock.qualityControlQuantity + stock.damagedQuantity;
    if (setAside > details.quantityInStock)
      throw new RangeError(`${setAside} units set aside are more than a stock of ${details.quantityInStock}.`);
    // A stored product has every setting: one a new product's details left out is 0.
    const settled =
      details.backorderLimit === undefined || details.lowStockThreshold === undefined || details.sku === undefined
        ? details.keepingSettingsOf({ backorderLimit: 0, lowStockThreshold: 0, sku: null })
        : details;
    return new Product(id, settled, version, reservedQuantity, stock);
  }

  /**
   * What can still be sold or reserved: the stock in no set-aside state (held,
   * committed, quality control, damaged), less the units backordered holds
   * wait for (which the next stock to arrive fills). Below 0 only while
   * backorders wait.
   */
  get availableQuantity(): number {
    return evaluate(AVAILABLE, this);
  }

  get committedQuantity(): number {
    return this.stock.committedQuantity;
  }

  get qualityControlQuantity(): number {
    return this.stock.qualityControlQuantity;
  }

  get damagedQuantity(): number {
    return this.stock.damagedQuantity;
  }

  get backorderedQuantity(): number {
    return this.stock.backorderedQuantity;
  }

  get backorderLimit(): number {
    return this.details.backorderLimit ?? 0;
  }

  get lowStockThreshold(): number {
    return this.details.lowStockThreshold ?? 0;
  }

  get sku(): string | null {
    return this.details.sku ?? null;
  }

  get stockState(): StockState {
    return stockStateOf(this);
  }

  get name(): string {
    return this.details.name;
  }

  get description(): string {
    return this.details.description;
  }

  get price(): Money {
    return this.details.price;
  }

  get quantityInStock(): number {
    return this.details.quantityInStock;
  }
}
