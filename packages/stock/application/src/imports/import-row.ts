import { type DomainError, Invalid, ValidationError } from '@platform/kernel';
import { isProductId, Money, ProductDetails, productFields, quantity } from '@stock/domain';

/** The columns of an import and an export, in the order an export writes them. */
export const PRODUCT_COLUMNS = [
  'id',
  'sku',
  'name',
  'description',
  'price',
  'locationCode',
  'onHand',
  'backorderLimit',
  'lowStockThreshold',
] as const;

export type ProductColumn = (typeof PRODUCT_COLUMNS)[number];

/** One row as a reader parsed it: each column's text; an absent or empty one leaves its field as it is. */
export type ImportRow = Readonly<Partial<Record<ProductColumn, string>>>;

/** A row its reader could not make into columns (a line that is not JSON): it fails with these problems. */
export class UnreadableRow {
  constructor(readonly problems: readonly string[]) {}
}

/** What a row asks, each field parsed by the domain's rule; an absent one is left as it is. */
export interface ProductRowInput {
  readonly id?: number;
  readonly sku?: string;
  readonly name?: string;
  readonly description?: string;
  readonly price?: Money;
  readonly locationCode?: string;
  readonly onHand?: number;
  readonly backorderLimit?: number;
  readonly lowStockThreshold?: number;
}

/** A price as a CSV cell writes it ("12", "12.5", "12.50"): Money's own parse decides what an amount is. */
function price(text: string): Money | Invalid {
  const number = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(number)) return new Invalid('must be a decimal amount such as 12 or 12.50');
  return Money.parse(number);
}

/** A whole number as text: digits only, then the domain's rule for a quantity. */
function count(text: string): number | Invalid {
  return /^\d{1,10}$/.test(text) ? quantity(Number(text)) : new Invalid('must be an integer from 0 to 2147483647');
}

const PARSERS: { readonly [C in ProductColumn]: (text: string) => ProductRowInput[C] | Invalid } = {
  id: (text) =>
    /^\d{1,10}$/.test(text) && isProductId(Number(text))
      ? Number(text)
      : new Invalid('must be an integer from 1 to 2147483647'),
  sku: productFields.sku,
  name: productFields.name,
  description: productFields.description,
  price,
  locationCode: (text) => text,
  onHand: count,
  backorderLimit: count,
  lowStockThreshold: count,
};

/**
 * Parses a row's cells with the domain's rules, answering what it asks or
 * every problem it has ("price: must …"), so a merchant fixes a row once.
 * An empty cell is no cell: the field stays as it is.
 */
export function readImportRow(row: ImportRow): ProductRowInput | string[] {
  const input: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const column of PRODUCT_COLUMNS) {
    const text = row[column];
    if (text === undefined || text === '') continue;
    const value = PARSERS[column](text);
    if (value instanceof Invalid) problems.push(`${column}: ${value.message}`);
    else input[column] = value;
  }
  return problems.length > 0 ? problems : input;
}

/**
 * The details of the product a row creates (no stock yet: its onHand arrives by an `imported` movement), or the
 * problems of a row that lacks what a new product needs.
 */
export function newProductDetails(input: ProductRowInput): ProductDetails | string[] {
  const { name, description = '', price, backorderLimit, lowStockThreshold, sku } = input;
  if (name === undefined || price === undefined) {
    const missing = [...(name === undefined ? ['name'] : []), ...(price === undefined ? ['price'] : [])];
    return missing.map((field) => `${field}: is required for a new product`);
  }
  const details = ProductDetails.check({
    name,
    description,
    price,
    quantityInStock: 0,
    ...(backorderLimit !== undefined && { backorderLimit }),
    ...(lowStockThreshold !== undefined && { lowStockThreshold }),
    ...(sku !== undefined && { sku }),
  });
  return details instanceof ValidationError ? problemsOf(details) : details;
}

/** A refusal in a row's words: each field's problem ("price: must …"), or the code and message of any other. */
export function problemsOf(error: DomainError): string[] {
  const errors = (error as { errors?: Record<string, string[]> }).errors;
  if (errors) return Object.entries(errors).flatMap(([field, messages]) => messages.map((m) => `${field}: ${m}`));
  return [`${error.code}: ${error.message}`];
}
