import type { Product, ProductDetails } from '../product';

export interface ProductPageQuery {
  /** Only products whose id is greater than this (0 for the first page). */
  readonly after: number;
  readonly limit: number;
}

export type UpdateOutcome =
  | { readonly status: 'updated'; readonly product: Product }
  | { readonly status: 'not-found' }
  | { readonly status: 'version-mismatch'; readonly currentVersion: number };

export type AdjustOutcome =
  | { readonly status: 'adjusted'; readonly product: Product }
  | { readonly status: 'not-found' }
  /** The stock would go below STOCK_MIN; nothing changed. */
  | { readonly status: 'below-minimum'; readonly available: number }
  /** The stock would go above STOCK_MAX; nothing changed. */
  | { readonly status: 'above-maximum'; readonly available: number };

/**
 * The products of one transaction, or of none (reads, and single calls the
 * store makes atomic by themselves). Every write is one conditional step,
 * never a read and then a write, and moves the product to its next version.
 */
export interface ProductRepository {
  /** Stores a new product (version 1) and answers it with the id the store assigned. */
  add(details: ProductDetails): Promise<Product>;
  findById(id: number): Promise<Product | undefined>;
  /** Products in ascending id order, after a given id. */
  list(query: ProductPageQuery): Promise<Product[]>;
  /** Replaces a product's details, only if it is still at `expectedVersion` when one is given. */
  update(id: number, details: ProductDetails, expectedVersion?: number): Promise<UpdateOutcome>;
  /** Adds `delta` to the stock in one atomic step, only if the result stays within STOCK_MIN..STOCK_MAX. */
  adjustStock(id: number, delta: number): Promise<AdjustOutcome>;
  /** Answers whether a product was removed. */
  remove(id: number): Promise<boolean>;
}
