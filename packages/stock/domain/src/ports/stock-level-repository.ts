import type { Product } from '../product';
import type { MovementContext } from '../stock-movement';
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
   */
  apply(
    productId: number,
    changes: readonly LevelChange[],
    product: ProductStockChange,
    context: MovementContext,
  ): Promise<Product>;
}
