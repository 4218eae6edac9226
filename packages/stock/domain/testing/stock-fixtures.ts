import {
  DEFAULT_STOCK_POLICY,
  type HeldStock,
  isRefusal,
  type LineRequest,
  type Location,
  type LocationLevel,
  type MovementContext,
  type Product,
  type ProductStock,
  type StockChange,
  type StockMovement,
  type StockTransaction,
} from '../src';
import { aContext, aLocation, aProduct } from './builders';
import type { StockStoreUnderTest } from './stock-store';

/**
 * The suites' ways into a store: each runs one unit of work as the use cases
 * do (lock the product, let the aggregate decide, save), so a suite states the
 * stock it starts from in the domain's own terms.
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

/** What a verb of the aggregate answers: a change (a hold's with its plan), a refusal, or nothing to change. */
export type Answer = StockChange | HeldStock | { readonly status: string } | undefined;

/** What a suite asks the aggregate to decide: one of its verbs (a refusal fails the suite). */
export type Decision = (stock: ProductStock) => Answer;

/**
 * Locks the product, lets the aggregate decide (`decide`, one of its verbs) and saves the change in one unit of
 * work, as the use cases do; answers the product after. A refusal, or a missing product, throws.
 */
export function saveDecided(
  store: StockStoreUnderTest,
  productId: number,
  decide: Decision,
  context: MovementContext = aContext(),
): Promise<Product> {
  return inTransaction(store, async (tx) => {
    const stock = await tx.stock.lock(productId);
    if (!stock) throw new Error(`Product ${productId} does not exist.`);
    const change = changeOf(decide(stock));
    await tx.stock.save(change, context);
    return change.after.product;
  });
}

/** The change a verb answered (a hold's change); a refusal (or nothing) fails the suite with what it said. */
export function changeOf(answer: Answer): StockChange {
  if (answer === undefined || isRefusal(answer)) throw new Error(`Refused: ${JSON.stringify(answer)}`);
  return 'plan' in answer ? answer.change : answer;
}

/** Adds `delta` at a location (ProductStock.adjust), saved in one unit of work; answers the product after. */
export function adjustStored(
  store: StockStoreUnderTest,
  productId: number,
  locationId: number,
  delta: number,
  context?: MovementContext,
): Promise<Product> {
  return saveDecided(store, productId, (stock) => stock.adjust(locationId, delta, DEFAULT_STOCK_POLICY), context);
}

/**
 * Holds a line (ProductStock.hold; across the store's locations by priority when it names none), saved in one unit
 * of work; answers the product after. Only the stock moves: no reservation records the hold.
 */
export async function holdStored(
  store: StockStoreUnderTest,
  productId: number,
  line: LineRequest,
  context?: MovementContext,
): Promise<Product> {
  const locations = await store.locations.list();
  return saveDecided(
    store,
    productId,
    (stock) => stock.hold(line, locations, 'priority', DEFAULT_STOCK_POLICY),
    context,
  );
}

/**
 * Removes a product as DeleteProduct does, under its lock: at `version`, or at the version the lock reads when none
 * is given (ProductStock.removal is not asked). Answers whether it went.
 */
export function removeStored(store: StockStoreUnderTest, productId: number, version?: number): Promise<boolean> {
  return inTransaction(store, async (tx) => {
    const stock = await tx.stock.lock(productId);
    return tx.products.remove(productId, version ?? stock?.product.version ?? 1);
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

/** A product's levels by location id, in every state, read outside any unit of work. */
export async function levelsOf(store: StockStoreUnderTest, productId: number): Promise<LocationLevel[] | undefined> {
  const levels = await store.stock.list(productId);
  return levels?.map(({ locationCode: _, ...level }) => level);
}
