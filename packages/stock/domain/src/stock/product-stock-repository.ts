import type { Product, ProductDetails } from '../products/product';
import type { LocationLevel } from './levels';
import type { AdjustmentReasonCode, AppendedMovement, MovementContext } from './movement';
import type { ProductStock, StockChange, StockPolicy } from './product-stock';

/** A product's level at a location, as the API shows it. */
export interface LevelView extends LocationLevel {
  readonly locationCode: string;
}

/**
 * What a change made at once answers: the product after it, or `needs-plan`
 * when the aggregate would do more than that one plain change (or refuse it):
 * nothing was changed, and the caller locks, decides and saves.
 */
export type AtOnceOutcome = { readonly status: 'changed'; readonly product: Product } | typeof NEEDS_PLAN;

export const NEEDS_PLAN = { status: 'needs-plan' } as const;

/**
 * Products' stock, inside one transaction: every change locks the product
 * first (`lock`), lets the ProductStock aggregate decide, and saves what it
 * decided (`save`) before the transaction ends. Changes to one product
 * therefore run one at a time, on any number of instances; several products
 * are locked in id order.
 */
export interface ProductStockRepository {
  /** The product's stock (its levels in location id order), locked until the transaction ends. */
  lock(productId: number): Promise<ProductStock | undefined>;
  /**
   * `lock` for several products, taken in id order (as every writer of
   * several takes them, so none deadlocks): the ones that exist, in id order.
   */
  lockMany(productIds: readonly number[]): Promise<ProductStock[]>;
  /** The product's levels with their location codes, in location id order; undefined when there is no such product. */
  list(productId: number): Promise<LevelView[] | undefined>;
  /** The levels of each of `productIds` that has any, with their location codes: one read for a batch. */
  listMany(productIds: readonly number[]): Promise<ReadonlyMap<number, LevelView[]>>;
  /**
   * Saves what the aggregate decided for a product this transaction locked,
   * in this transaction: each level moved by its change (or created), the
   * product's totals, backorders, alert, version and ledger sequence as the
   * change's `after` has them, and each of its movements appended to the
   * ledger with `context` (the trace filled in when the context has none and
   * the store is handed a trace provider). Only from the version the lock
   * read: a change decided from anything else throws, as does one a level's
   * checks refuse, and the transaction rolls back. Answers the movements
   * appended, in ledger order, with their ids.
   */
  save(change: StockChange, context: MovementContext): Promise<AppendedMovement[]>;
  /** `save` for changes of distinct locked products, in as few statements as the store can. */
  saveMany(changes: readonly StockChange[], context: MovementContext): Promise<void>;
  /**
   * Optional, for a store where a transaction costs round trips (PostgreSQL):
   * adds `delta` available units at the location in one statement outside
   * any transaction (a unit of work run with singleCall), but only when
   * ProductStock.adjust would answer exactly that one change: its conditions
   * are the aggregate's own rules (KEEPS_HOLDS, WITHIN_STOCK_MAX, no
   * ARRIVAL_FILLS, LOW_STOCK_STEADY) rendered into the statement, read under
   * the product's lock, and the location has a level. The product moves to
   * its next version and the ledger gets the one `adjusted` movement, with
   * `reasonCode`, as `save` would write them. Otherwise nothing changes, and
   * it answers needs-plan.
   */
  adjustAtOnce?(
    productId: number,
    locationId: number,
    delta: number,
    reasonCode: AdjustmentReasonCode,
    context: MovementContext,
    policy: StockPolicy,
  ): Promise<AtOnceOutcome>;
  /**
   * Optional, as `adjustAtOnce`: a PUT in one statement. Replaces the details
   * (settings it leaves out stay) and sets the default location's stock to
   * details.quantityInStock, only when UpdateProduct would make exactly that:
   * the product is at `expectedVersion` when one is given, and when its
   * stock changes, ProductStock.replace answers the one `updated` change
   * (every other level empty, COVERS_HOLDS, LOW_STOCK_STEADY with the new
   * threshold). The version moves as UpdateProduct's would (by 1, or 2 when
   * the stock changes). Otherwise needs-plan, nothing changed.
   */
  replaceAtOnce?(
    productId: number,
    details: ProductDetails,
    expectedVersion: number | undefined,
    context: MovementContext,
    policy: StockPolicy,
  ): Promise<AtOnceOutcome>;
}
