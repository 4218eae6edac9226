import type { Product, ProductDetails } from '../product';
import type { MovementContext } from '../stock-movement';

export interface ProductPageQuery {
  /** Only products whose id is greater than this (0 for the first page). */
  readonly after: number;
  readonly limit: number;
}

export type UpdateOutcome =
  | { readonly status: 'updated'; readonly product: Product }
  | { readonly status: 'not-found' }
  | { readonly status: 'version-mismatch'; readonly currentVersion: number }
  /** The new stock would be below what reservations hold; nothing changed. */
  | { readonly status: 'below-reserved'; readonly quantityInStock: number; readonly reservedQuantity: number };

export type AdjustOutcome =
  | { readonly status: 'adjusted'; readonly product: Product }
  | { readonly status: 'not-found' }
  /** The stock would go below what reservations hold (or below 0); `available` is what could be taken out. Nothing changed. */
  | { readonly status: 'below-minimum'; readonly available: number }
  /** The stock would go above STOCK_MAX; nothing changed. */
  | { readonly status: 'above-maximum'; readonly available: number };

export type RemoveOutcome = { readonly status: 'removed' } | { readonly status: 'not-found' } | { readonly status: 'reserved'; readonly reservedQuantity: number };

export type HoldOutcome =
  | { readonly status: 'held'; readonly product: Product }
  | { readonly status: 'not-found' }
  /** Fewer than the quantity are available; nothing changed. */
  | { readonly status: 'short'; readonly available: number };

/** What settling a hold does: commit takes it out of stock, release and expiry give it back. */
export type Settlement = 'committed' | 'released' | 'expired';

/**
 * The products of one transaction, or of none (reads, and single calls the
 * store makes atomic by themselves). Every write is one conditional step,
 * never a read and then a write, moves the product to its next version, and
 * appends one stock movement when it changes a quantity, in the same step.
 */
export interface ProductRepository {
  /** Stores a new product (version 1) and answers it with the id the store assigned. */
  add(details: ProductDetails, context: MovementContext): Promise<Product>;
  findById(id: number): Promise<Product | undefined>;
  /** The products among `ids` that exist, in id order. */
  findMany(ids: readonly number[]): Promise<Product[]>;
  /** Products in ascending id order, after a given id. */
  list(query: ProductPageQuery): Promise<Product[]>;
  /** Replaces a product's details, only if it is still at `expectedVersion` when one is given, and never below what is held. */
  update(id: number, details: ProductDetails, expectedVersion: number | undefined, context: MovementContext): Promise<UpdateOutcome>;
  /** Adds `delta` to the stock, only if the result stays within what is held..STOCK_MAX. */
  adjustStock(id: number, delta: number, context: MovementContext): Promise<AdjustOutcome>;
  /** Removes a product nothing is held of. */
  remove(id: number): Promise<RemoveOutcome>;
  /** Holds `quantity` of the product's available stock for a reservation. */
  hold(id: number, quantity: number, context: MovementContext): Promise<HoldOutcome>;
  /** Ends a hold of `quantity`: commit takes it out of stock, release and expiry make it available again. */
  settle(id: number, quantity: number, settlement: Settlement, context: MovementContext): Promise<Product | undefined>;
}
