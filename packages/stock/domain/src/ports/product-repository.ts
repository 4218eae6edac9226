import type { Product, ProductDetails } from '../product';
import type { MovementContext } from '../stock-movement';
import type { AdjustmentRefusal, HoldRefusal, RemovalRefusal, UpdateRefusal } from '../stock-rules';

export interface ProductPageQuery {
  /** Only products whose id is greater than this (0 for the first page). */
  readonly after: number;
  readonly limit: number;
}

interface NotFound {
  readonly status: 'not-found';
}

/** Each write answers its result, that the product is missing, or the stock rule's refusal (nothing changed). */
export type UpdateOutcome = { readonly status: 'updated'; readonly product: Product } | NotFound | UpdateRefusal;

export type AdjustOutcome = { readonly status: 'adjusted'; readonly product: Product } | NotFound | AdjustmentRefusal;

export type RemoveOutcome = { readonly status: 'removed' } | NotFound | RemovalRefusal;

export type HoldOutcome = { readonly status: 'held'; readonly product: Product } | NotFound | HoldRefusal;

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
  /** Replaces a product's details, unless updateRefusal refuses (not at `expectedVersion`, or below what is held). */
  update(
    id: number,
    details: ProductDetails,
    expectedVersion: number | undefined,
    context: MovementContext,
  ): Promise<UpdateOutcome>;
  /** Adds `delta` to the stock, unless adjustmentRefusal refuses (below what is held, above STOCK_MAX). */
  adjustStock(id: number, delta: number, context: MovementContext): Promise<AdjustOutcome>;
  /** Removes a product, unless removalRefusal refuses (something of it is held). */
  remove(id: number): Promise<RemoveOutcome>;
  /** Holds `quantity` of the product's available stock for a reservation, unless holdRefusal refuses. */
  hold(id: number, quantity: number, context: MovementContext): Promise<HoldOutcome>;
  /**
   * Ends a hold of `quantity`: commit takes it out of stock, release and
   * expiry make it available again. Undefined when the product is missing or
   * settlementRefusal refuses (it holds less than that).
   */
  settle(id: number, quantity: number, settlement: Settlement, context: MovementContext): Promise<Product | undefined>;
}
