import type { Product, ProductDetails, StockState } from '../product';
import type { MovementContext } from '../stock-movement';

export interface ProductPageQuery {
  /** Only products whose id is greater than this (0 for the first page). */
  readonly after: number;
  readonly limit: number;
  /** Only products in this stock state (Product.stockState). */
  readonly stockState?: StockState;
}

interface NotFound {
  readonly status: 'not-found';
}

export type UpdateOutcome =
  | { readonly status: 'updated'; readonly product: Product }
  | NotFound
  | { readonly status: 'version-mismatch'; readonly currentVersion: number };

export type RemoveOutcome = { readonly status: 'removed' } | NotFound | { readonly status: 'blocked' };

/**
 * The products of one transaction, or of none (reads). A product's stock is
 * changed through StockLevelRepository, never here, except by `add`, which
 * puts a new product's stock at the default location.
 */
export interface ProductRepository {
  /**
   * Stores a new product (version 1, settings 0 where absent) with its
   * quantityInStock at the default location (one `created` movement there),
   * and answers it with the id the store assigned.
   */
  add(details: ProductDetails, context: MovementContext): Promise<Product>;
  findById(id: number): Promise<Product | undefined>;
  /** The products among `ids` that exist, in id order. */
  findMany(ids: readonly number[]): Promise<Product[]>;
  /** Products in ascending id order, after a given id (in a stock state, when asked). */
  list(query: ProductPageQuery): Promise<Product[]>;
  /**
   * Replaces name, description, price and the settings `details` carries
   * (an absent one stays), moving the product to its next version; refused
   * when it is not at `expectedVersion`. Its stock is left as it is
   * (details.quantityInStock is not read).
   */
  updateDetails(id: number, details: ProductDetails, expectedVersion: number | undefined): Promise<UpdateOutcome>;
  /**
   * Removes a product with its levels, unless anything of it is held,
   * backordered or on its way between locations (productRemovalBlocked, as the
   * store's guard).
   */
  remove(id: number): Promise<RemoveOutcome>;
}
