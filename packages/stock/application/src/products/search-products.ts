import { createHash } from 'node:crypto';
import { ValidationError } from '@platform/kernel';
import {
  type Money,
  type Product,
  type ProductRepository,
  type ProductSearch,
  type ProductSort,
  type SearchPosition,
  searchRelevance,
  type StockState,
} from '@stock/domain';

/**
 * Shorter text has no trigram: neither pg_trgm nor FTS5's trigram tokenizer could answer it from its index, so it is
 * refused rather than answered by a scan.
 */
export const SEARCH_TEXT_MIN_LENGTH = 3;
export const SEARCH_TEXT_MAX_LENGTH = 200;

/** What a search asks for; `cursor` is a page's `nextCursor`, taken with the same filters and sort. */
export interface SearchProductsInput {
  readonly q?: string;
  readonly minPrice?: Money;
  readonly maxPrice?: Money;
  readonly stockState?: StockState;
  readonly locationId?: number;
  /** `id` when absent. */
  readonly sort?: ProductSort;
  readonly limit: number;
  readonly cursor?: string;
}

export interface SearchPage {
  readonly items: Product[];
  /** Where the next page starts, when there is one: opaque to the caller. */
  readonly nextCursor?: string;
}

/** What a cursor carries: the sort, the last product's position in it, and the fingerprint of the search's filters. */
interface CursorContent {
  readonly s: ProductSort;
  readonly k: string | number;
  readonly i: number;
  readonly f: string;
}

/** A product's value of the sort key, as the stores compare it (price in cents; relevance for the text). */
function keyOf(sort: ProductSort, product: Product, text: string): string | number {
  switch (sort.replace('-', '')) {
    case 'relevance':
      return searchRelevance(product, text) ?? 0;
    case 'name':
      return product.name;
    case 'price':
      return product.price.cents;
    case 'available':
      return product.availableQuantity;
    default:
      return product.id;
  }
}

/** The filters and sort, hashed: a cursor names the search it belongs to without repeating its text. */
function fingerprintOf(input: SearchProductsInput, sort: ProductSort): string {
  const { q, minPrice, maxPrice, stockState, locationId } = input;
  const filters = [q ?? null, minPrice?.cents ?? null, maxPrice?.cents ?? null, stockState ?? null, locationId ?? null];
  return createHash('sha256')
    .update(JSON.stringify([sort, ...filters]))
    .digest('base64url')
    .slice(0, 16);
}

function encodeCursor(content: CursorContent): string {
  return Buffer.from(JSON.stringify(content)).toString('base64url');
}

const BAD_CURSOR = 'is not a cursor this API answered: take it from a Link header or nextCursor, unchanged';
const OTHER_SEARCH = 'belongs to another search: send it with the same filters and sort as the page that gave it';

/** The position in a cursor; refused (naming `cursor`) when not one of ours, or made for another search. */
function decodeCursor(cursor: string, sort: ProductSort, fingerprint: string): SearchPosition {
  let content: Partial<CursorContent>;
  try {
    content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorContent>;
  } catch {
    throw new ValidationError({ cursor: [BAD_CURSOR] });
  }
  const { s, k, i, f } = content ?? {};
  if (typeof s !== 'string' || typeof f !== 'string') throw new ValidationError({ cursor: [BAD_CURSOR] });
  if (s !== sort || f !== fingerprint) throw new ValidationError({ cursor: [OTHER_SEARCH] });
  const keyIsValid = typeof k === (sort === 'name' || sort === '-name' ? 'string' : 'number');
  if (!keyIsValid || !Number.isSafeInteger(i)) throw new ValidationError({ cursor: [BAD_CURSOR] });
  return { key: k as string | number, id: i as number };
}

/** The rules of a search's values that no single parameter's decoder sees. */
function validate(input: SearchProductsInput): void {
  const problems: Record<string, string[]> = {};
  if (input.q !== undefined) {
    const length = [...input.q].length;
    if (length < SEARCH_TEXT_MIN_LENGTH || length > SEARCH_TEXT_MAX_LENGTH)
      problems.q = [`must be ${SEARCH_TEXT_MIN_LENGTH} to ${SEARCH_TEXT_MAX_LENGTH} characters`];
  }
  if (input.sort === 'relevance' && input.q === undefined)
    problems.sort = ['relevance needs q: it ranks where the text is found'];
  if (input.minPrice && input.maxPrice && input.minPrice.cents > input.maxPrice.cents)
    problems.minPrice = ['must not be more than maxPrice'];
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
}

/**
 * A keyset page of the catalogue: every filter given must hold, in the order asked (ties by id). The cursor hands
 * the position on between pages opaquely, and refuses to be used with other filters or another sort, whose order
 * it would not fit.
 */
export class SearchProducts {
  constructor(private readonly products: ProductRepository) {}

  async execute(input: SearchProductsInput): Promise<SearchPage> {
    validate(input);
    const sort = input.sort ?? 'id';
    const fingerprint = fingerprintOf(input, sort);
    const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor, sort, fingerprint);
    const { q, minPrice, maxPrice, stockState, locationId, limit } = input;
    const query: ProductSearch = {
      ...(q !== undefined && { q }),
      ...(minPrice && { minPrice }),
      ...(maxPrice && { maxPrice }),
      ...(stockState && { stockState }),
      ...(locationId !== undefined && { locationId }),
      ...(after && { after }),
      sort,
      // One more than the page, to know whether another follows.
      limit: limit + 1,
    };
    const rows = await this.products.search(query);
    if (rows.length <= limit) return { items: rows };
    const items = rows.slice(0, limit);
    const last = items[items.length - 1]!;
    return { items, nextCursor: encodeCursor({ s: sort, k: keyOf(sort, last, q ?? ''), i: last.id, f: fingerprint }) };
  }
}
