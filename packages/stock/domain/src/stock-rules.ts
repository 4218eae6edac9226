import { INT32_MAX } from '@platform/kernel';

/**
 * The stock rules: each answers why a change to a product's stock is refused,
 * or undefined when it may be made. The adapters call them; the SQL adapter
 * also writes each as the condition of its atomic statement, and asks the rule
 * why when that statement refuses (a contract suite holds the two together at
 * the edges).
 */

/** Stock never goes below this, nor above STOCK_MAX (the stores' int4 column). */
export const STOCK_MIN = 0;
export const STOCK_MAX = INT32_MAX;

/** What a rule reads of a product: what is in stock and what reservations hold of it. */
export interface StockLevel {
  readonly quantityInStock: number;
  /** Never below STOCK_MIN, never above quantityInStock. */
  readonly reservedQuantity: number;
}

/** Fewer than the quantity are available; `available` is in stock − reserved. */
export interface HoldRefusal {
  readonly status: 'short';
  readonly available: number;
}

export type AdjustmentRefusal =
  /** The stock would go below what is held (below 0 when nothing is); `available` is what could be taken out. */
  | { readonly status: 'below-minimum'; readonly available: number }
  /** The stock would go above STOCK_MAX; `available` is the stock as it is. */
  | { readonly status: 'above-maximum'; readonly available: number };

export type UpdateRefusal =
  | { readonly status: 'version-mismatch'; readonly currentVersion: number }
  /** The new stock would be below what reservations hold. */
  | { readonly status: 'below-reserved'; readonly quantityInStock: number; readonly reservedQuantity: number };

/** Reservations hold some of the product: deleting it would take their stock. */
export interface RemovalRefusal {
  readonly status: 'reserved';
  readonly reservedQuantity: number;
}

/** A settlement (commit, release, expiry) of more than the product holds. */
export interface SettlementRefusal {
  readonly status: 'more-than-held';
  readonly reservedQuantity: number;
}

/** What can still be sold or reserved: the stock no reservation holds. */
export function availableQuantity(stock: StockLevel): number {
  return stock.quantityInStock - stock.reservedQuantity;
}

/** Holding `quantity` takes it from what is available: never more than in stock − reserved. */
export function holdRefusal(stock: StockLevel, quantity: number): HoldRefusal | undefined {
  const available = availableQuantity(stock);
  return quantity > available ? { status: 'short', available } : undefined;
}

/** Adding `delta` keeps the stock within what is held .. STOCK_MAX, and so never below STOCK_MIN. */
export function adjustmentRefusal(stock: StockLevel, delta: number): AdjustmentRefusal | undefined {
  const next = stock.quantityInStock + delta;
  if (next < stock.reservedQuantity) return { status: 'below-minimum', available: availableQuantity(stock) };
  if (next > STOCK_MAX) return { status: 'above-maximum', available: stock.quantityInStock };
  return undefined;
}

/**
 * Replacing the details is refused when the product moved past the version
 * the caller read (checked first: the caller's view is stale, so nothing else
 * it asks is judged), or when the new stock is below what reservations hold.
 */
export function updateRefusal(
  current: StockLevel & { readonly version: number },
  quantityInStock: number,
  expectedVersion: number | undefined,
): UpdateRefusal | undefined {
  const { version, reservedQuantity } = current;
  const stale = expectedVersion !== undefined && version !== expectedVersion;
  if (stale) return { status: 'version-mismatch', currentVersion: version };
  if (quantityInStock >= reservedQuantity) return undefined;
  return { status: 'below-reserved', quantityInStock: current.quantityInStock, reservedQuantity };
}

/** A product is removed only when nothing of it is held. */
export function removalRefusal(stock: StockLevel): RemovalRefusal | undefined {
  return stock.reservedQuantity > 0 ? { status: 'reserved', reservedQuantity: stock.reservedQuantity } : undefined;
}

/**
 * A settlement ends a hold of `quantity`: never more than is held. A commit
 * also takes it out of stock, which stays at or above STOCK_MIN since what is
 * held never exceeds what is in stock.
 */
export function settlementRefusal(stock: StockLevel, quantity: number): SettlementRefusal | undefined {
  const { reservedQuantity } = stock;
  return quantity > reservedQuantity ? { status: 'more-than-held', reservedQuantity } : undefined;
}
