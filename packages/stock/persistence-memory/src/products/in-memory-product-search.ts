import type { InMemoryTransaction } from '@platform/persistence/memory';
import {
  type Product,
  type ProductSearch,
  type ProductSort,
  type SearchPosition,
  searchRelevance,
} from '@stock/domain';
import { levelKey, type InMemoryStockTables } from '../in-memory-stock-tables';

type Key = string | number;

/** A product's value of the sort key, as SearchPosition.key carries it (relevance: for the search's text). */
const SORT_KEYS: Readonly<Record<ProductSort, (product: Product, text: string) => Key>> = {
  id: (product) => product.id,
  relevance: (product, text) => searchRelevance(product, text) ?? Number.MAX_SAFE_INTEGER,
  name: (product) => product.name,
  '-name': (product) => product.name,
  price: (product) => product.price.cents,
  '-price': (product) => product.price.cents,
  available: (product) => product.availableQuantity,
  '-available': (product) => product.availableQuantity,
};

/** Names compare by code unit, as the databases' binary (SQLite) and C (PostgreSQL) collations compare them. */
function compareKeys(a: Key, b: Key): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The search's order: its key (descending when it starts with `-`), then the id, ascending. */
function comparePositions(sort: ProductSort, a: SearchPosition, b: SearchPosition): number {
  const byKey = compareKeys(a.key, b.key);
  return (sort.startsWith('-') ? -byKey : byKey) || a.id - b.id;
}

function positionOf(sort: ProductSort, text: string, product: Product): SearchPosition {
  return { key: SORT_KEYS[sort](product, text), id: product.id };
}

/** Whether the product matches every filter the search gives. */
function matches(tables: InMemoryStockTables, tx: InMemoryTransaction | undefined, query: ProductSearch) {
  const text = query.q?.toLowerCase();
  return (product: Product): boolean => {
    if (
      text !== undefined &&
      ![product.name, product.description, product.sku ?? ''].some((field) => field.toLowerCase().includes(text))
    )
      return false;
    if (query.minPrice && product.price.cents < query.minPrice.cents) return false;
    if (query.maxPrice && product.price.cents > query.maxPrice.cents) return false;
    if (query.stockState && product.stockState !== query.stockState) return false;
    if (query.locationId !== undefined) {
      const level = tables.levels.get(levelKey(product.id, query.locationId), tx);
      if (!level || level.onHand - level.reserved <= 0) return false;
    }
    return true;
  };
}

/** A keyset page of a search over the products table: filtered, sorted, then taken after the position. */
export function searchProducts(
  tables: InMemoryStockTables,
  tx: InMemoryTransaction | undefined,
  query: ProductSearch,
): Product[] {
  const { sort, after, limit } = query;
  const text = query.q ?? '';
  return [...tables.products.values(tx)]
    .filter(matches(tables, tx, query))
    .filter((product) => after === undefined || comparePositions(sort, positionOf(sort, text, product), after) > 0)
    .sort((a, b) => comparePositions(sort, positionOf(sort, text, a), positionOf(sort, text, b)))
    .slice(0, limit);
}
