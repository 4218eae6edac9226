import type {
  LevelChange,
  Location,
  MovementContext,
  Product,
  ProductStockChange,
  StockMovement,
  StockTransaction,
} from '@stock/domain';
import { aContext, aLocation, aProduct } from './builders';
import type { StockStoreUnderTest } from './stock-store';

/**
 * The suites' ways into a store: each runs one unit of work as the use cases
 * do (lock the product, then apply), so a suite states the stock it starts
 * from in the domain's own terms.
 */

/** Runs `work` as one unit of work of the store. */
export function inTransaction<T>(store: StockStoreUnderTest, work: (tx: StockTransaction) => Promise<T>): Promise<T> {
  return store.unitOfWork.run(work);
}

/** A new product with `quantityInStock` at the default location (and the other details given). */
export function aStoredProduct(
  store: StockStoreUnderTest,
  details: Parameters<typeof aProduct>[0] = {},
): Promise<Product> {
  return inTransaction(store, (tx) => tx.products.add(aProduct(details), aContext()));
}

export function aStoredLocation(
  store: StockStoreUnderTest,
  draft: Parameters<typeof aLocation>[0] = {},
): Promise<Location> {
  return inTransaction(store, async (tx) => {
    const location = await tx.locations.add(aLocation(draft));
    if (location === 'code-taken') throw new Error(`The location code ${draft.code} is taken.`);
    return location;
  });
}

/** Locks the product and applies `changes` (and `product`) in one unit of work; answers the product after. */
export function applyChanges(
  store: StockStoreUnderTest,
  productId: number,
  changes: readonly LevelChange[],
  product: ProductStockChange = {},
  context: MovementContext = aContext(),
): Promise<Product> {
  return inTransaction(store, async (tx) => {
    if (!(await tx.levels.lock(productId))) throw new Error(`Product ${productId} does not exist.`);
    return tx.levels.apply(productId, changes, product, context);
  });
}

/** Every movement of a product's ledger, oldest first, read outside any unit of work. */
export async function movementsOf(store: StockStoreUnderTest, productId: number): Promise<StockMovement[]> {
  const all: StockMovement[] = [];
  for (;;) {
    const page = await store.movements.list(productId, { after: all.at(-1)?.id ?? 0, limit: 500 });
    all.push(...page);
    if (page.length < 500) return all;
  }
}

/** A product's levels as onHand/reserved/incoming by location id, read outside any unit of work. */
export async function levelsOf(
  store: StockStoreUnderTest,
  productId: number,
): Promise<{ locationId: number; onHand: number; reserved: number; incoming: number }[] | undefined> {
  const levels = await store.levels.list(productId);
  return levels?.map(({ locationId, onHand, reserved, incoming }) => ({ locationId, onHand, reserved, incoming }));
}
