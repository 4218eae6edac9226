import type { Money } from '@commerce/shared-kernel';
import type { Product, ProductDetails, StockState } from './product';
import type { MovementContext } from '../stock/movement';

export interface ProductPageQuery {
  /** Only products whose id is greater than this (0 for the first page). */
  readonly after: number;
  readonly limit: number;
  /** Only products in this stock state (Product.stockState). */
  readonly stockState?: StockState;
}

/**
 * The orders a search can answer in: `-` is descending; ties (and `id`) go by id, ascending. `relevance` needs a text
 * (`q`): the best field it is found in first (searchRelevance), then the id. It has no `-`: the least relevant first
 * answers no question a client asks.
 */
export type ProductSort = 'id' | 'name' | '-name' | 'price' | '-price' | 'available' | '-available' | 'relevance';
export const PRODUCT_SORTS: readonly ProductSort[] = [
  'id',
  'name',
  '-name',
  'price',
  '-price',
  'available',
  '-available',
  'relevance',
];

/**
 * How well a product matches a search's text, as `sort=relevance` orders it (lower first): 0 when its name has the
 * text, 1 when its SKU has it (and not its name), 2 when only its description has it. A coarse rank every store
 * computes alike from the row, so that a keyset (rank, id) pages it exactly and each rank is read from an index in id
 * order, whatever the catalogue's size (docs/performance.md).
 */
export const SEARCH_RELEVANCE_FIELDS = ['name', 'sku', 'description'] as const;
export type SearchRelevance = 0 | 1 | 2;

/** The product's relevance for `text` (case ignored), or undefined when no field has it. */
export function searchRelevance(
  product: { readonly name: string; readonly description: string; readonly sku?: string | null },
  text: string,
): SearchRelevance | undefined {
  const wanted = text.toLowerCase();
  const rank = SEARCH_RELEVANCE_FIELDS.findIndex((field) => (product[field] ?? '').toLowerCase().includes(wanted));
  return rank < 0 ? undefined : (rank as SearchRelevance);
}

/** Where a keyset page starts: after the product with this sort key and id (both as the last page ended). */
export interface SearchPosition {
  /** The last product's value of the sort key (its name, its price in cents, its available quantity, its relevance). */
  readonly key: string | number;
  readonly id: number;
}

/**
 * A search of the catalogue: every filter given must hold. Each store answers
 * it with an index, not a scan (docs/performance.md says which).
 */
export interface ProductSearch {
  /** Case-insensitive text found in the name, the description or the SKU; required by `sort=relevance`. */
  readonly q?: string;
  readonly minPrice?: Money;
  readonly maxPrice?: Money;
  readonly stockState?: StockState;
  /** Only products with stock available at this location. */
  readonly locationId?: number;
  readonly sort: ProductSort;
  readonly limit: number;
  /** The next page: after this position in the sort order. */
  readonly after?: SearchPosition;
}

interface NotFound {
  readonly status: 'not-found';
}

export type UpdateOutcome =
  | { readonly status: 'updated'; readonly product: Product }
  | NotFound
  | { readonly status: 'version-mismatch'; readonly currentVersion: number };

/** One product's new details in a batch (ProductRepository.updateDetailsMany). */
export interface DetailsUpdate {
  readonly id: number;
  readonly details: ProductDetails;
  readonly expectedVersion: number;
}

/**
 * The products of one transaction, or of none (reads). A product's stock is
 * changed through ProductStockRepository, never here, except by `add`, which
 * puts a new product's stock at the default location.
 */
export interface ProductRepository {
  /**
   * Stores a new product (version 1, settings 0 where absent) with its
   * quantityInStock at the default location, and its ledger's first movement
   * (ProductStock.opening) with `context`, and answers it with the id the store assigned. A SKU another product has
   * (ignoring case) throws SkuTakenError, and nothing is stored.
   */
  add(details: ProductDetails, context: MovementContext): Promise<Product>;
  /**
   * `add` for a batch, in one statement where the store can: answers the new
   * products in the order of `details`. A SKU taken (by a product stored or by
   * another of the batch) throws SkuTakenError, and nothing is stored.
   */
  addMany(details: readonly ProductDetails[], context: MovementContext): Promise<Product[]>;
  findById(id: number): Promise<Product | undefined>;
  /** The products among `ids` that exist, in id order. */
  findMany(ids: readonly number[]): Promise<Product[]>;
  /** Products in ascending id order, after a given id (in a stock state, when asked). */
  list(query: ProductPageQuery): Promise<Product[]>;
  /** The product with this SKU, whatever the case of its letters. */
  findBySku(sku: string): Promise<Product | undefined>;
  /** The products that have any of `skus` (ignoring case), in id order: one read for a batch of rows. */
  findManyBySku(skus: readonly string[]): Promise<Product[]>;
  /** One keyset page of the products the search matches, in its order. */
  search(query: ProductSearch): Promise<Product[]>;
  /**
   * Replaces name, description, price and the settings `details` carries
   * (an absent one stays), moving the product to its next version; refused
   * when it is not at `expectedVersion`. Its stock is left as it is
   * (details.quantityInStock is not read). A SKU another product has throws
   * SkuTakenError.
   */
  updateDetails(id: number, details: ProductDetails, expectedVersion: number | undefined): Promise<UpdateOutcome>;
  /**
   * `updateDetails` for a batch of distinct products the caller locked, in
   * one statement where the store can: answers the products updated, in the
   * order of `updates`; one missing or not at its version is left out (and
   * left as it is). A SKU another product has throws SkuTakenError.
   */
  updateDetailsMany(updates: readonly DetailsUpdate[]): Promise<Product[]>;
  /**
   * Removes a product this transaction locked, with its levels (its ledger
   * stays, as history), when it is at `version`: whether it may go is the
   * aggregate's to say (ProductStock.removal), from what the lock read.
   */
  remove(id: number, version: number): Promise<boolean>;
}
