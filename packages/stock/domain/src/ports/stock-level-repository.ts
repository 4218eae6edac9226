import type { Product, ProductDetails } from '../product';
import type { AppendedMovement, MovementContext } from '../stock-movement';
import type { LevelChange, LocationLevel, ProductStock } from '../stock-levels';

/** A product's level at a location, as the API shows it. */
export interface LevelView extends LocationLevel {
  readonly locationCode: string;
}

/** What a change does to the product beside its levels. */
export interface ProductStockChange {
  /** Added to backorderedQuantity (negative: backorders filled or dropped). */
  readonly backordered?: number;
  /** The low-stock alert after the change (lowStockCrossing decided it), when it changes. */
  readonly lowStockAlert?: boolean;
}

/** One product's changes in a batch (StockLevelRepository.applyMany): as the arguments of `apply`. */
export interface StockApplication {
  readonly productId: number;
  readonly changes: readonly LevelChange[];
  readonly product: ProductStockChange;
}

/**
 * What a change made at once answers: the product after it, or `needs-plan`
 * when the transactional path would do more than that one plain change (or
 * refuse it): nothing was changed, and the caller locks, plans and applies.
 */
export type AtOnceOutcome = { readonly status: 'changed'; readonly product: Product } | typeof NEEDS_PLAN;

export const NEEDS_PLAN = { status: 'needs-plan' } as const;

/**
 * Stock by location, inside one transaction: every change to a product's
 * stock locks the product first (`lock`), plans from what it read with the
 * rules of stock-levels.ts, and applies the plan (`apply`) before the
 * transaction ends. Changes to one product therefore run one at a time, on any
 * number of instances; several products are locked in id order.
 */
export interface StockLevelRepository {
  /**
   * The product and its levels (in location id order), locked until the
   * transaction ends; undefined when there is no such product.
   */
  lock(productId: number): Promise<ProductStock | undefined>;
  /**
   * `lock` for several products, taken in id order (as every writer of
   * several takes them, so none deadlocks): the ones that exist, in id order,
   * in two reads where the store can (the products, then their levels).
   */
  lockMany(productIds: readonly number[]): Promise<ProductStock[]>;
  /** The product's levels with their location codes, in location id order; undefined when there is no such product. */
  list(productId: number): Promise<LevelView[] | undefined>;
  /**
   * The levels of each of `productIds` that has any, with their location
   * codes, in location id order: one read for a batch of products (an export
   * walks the catalogue a keyset batch at a time).
   */
  listMany(productIds: readonly number[]): Promise<ReadonlyMap<number, LevelView[]>>;
  /**
   * Applies `changes` to the locked product's levels (creating a level where
   * it has none) and `product` to the product, moving it to its next version,
   * and answers the product after. Each change that moves onHand or reserved
   * appends one movement (its kind, location and transfer, with `context`).
   * The writes are conditional: a change that would take a level's onHand
   * below its reserved or below 0, reserved or incoming below 0, or the
   * product's stock above STOCK_MAX throws, and the transaction rolls back.
   * When `appended` is given, the movements it appended are pushed to it in
   * ledger order (id, sequence, location, the level after): what the use case
   * tells webhook receivers (stock.level.changed); without it a store spends
   * nothing on finding them.
   */
  apply(
    productId: number,
    changes: readonly LevelChange[],
    product: ProductStockChange,
    context: MovementContext,
    appended?: AppendedMovement[],
  ): Promise<Product>;
  /**
   * `apply` for a batch of distinct products the transaction locked, with the
   * same guards, movements and answers (the products after, in the order of
   * `applications`): in one statement where the store can. A guard that
   * refuses throws, and the transaction rolls back.
   */
  applyMany(applications: readonly StockApplication[], context: MovementContext): Promise<Product[]>;
  /**
   * Optional, for a store where a transaction costs round trips (PostgreSQL):
   * adds `delta` at the location in one statement, run outside any
   * transaction (a unit of work run with singleCall), but only when the
   * transactional path (lock, planAdjustment, applyPlan, fillBackorders) would
   * make exactly that one change and nothing else: the location has a level
   * and keeps 0 <= reserved <= onHand, the product stays within STOCK_MAX, its
   * low-stock alert stays as it is (lowStockCrossing with `lowStockHysteresis`
   * answers no event and the same flag), and no backorder waits for stock that
   * arrives. The product moves to its next version and the ledger gets the one
   * `adjusted` movement at the location, as `apply` would write them. Otherwise
   * it changes nothing and answers needs-plan; so does a race it cannot settle
   * in the statement. It takes the product's lock before its level's, as
   * `lock` then `apply` do. `appended` as apply's (filled only when it changed).
   */
  adjustAtOnce?(
    productId: number,
    locationId: number,
    delta: number,
    context: MovementContext,
    lowStockHysteresis: number,
    appended?: AppendedMovement[],
  ): Promise<AtOnceOutcome>;
  /**
   * Optional, as `adjustAtOnce`: a PUT in one statement. Replaces the details
   * (settings it leaves out stay) and sets the default location's stock to
   * details.quantityInStock, only when the transactional path (UpdateProduct)
   * would make exactly that: the product is at `expectedVersion` when one is
   * given, and when its stock changes, it has no stock, holds or incoming
   * units at any other location, the default location holds no more than the
   * new stock, and its low-stock alert stays as it is (with the new
   * threshold). The version moves as that path's would (by 1, or 2 when the
   * stock changes: the details, then the change), with one `updated` movement
   * at the default location when the stock changes. Otherwise needs-plan,
   * nothing changed. `appended` as apply's.
   */
  replaceAtOnce?(
    productId: number,
    details: ProductDetails,
    expectedVersion: number | undefined,
    context: MovementContext,
    lowStockHysteresis: number,
    appended?: AppendedMovement[],
  ): Promise<AtOnceOutcome>;
}
