import { newEvent } from '@commerce/contracts';
import {
  type AppendedMovement,
  DEFAULT_LOCATION_ID,
  fillChange,
  type LevelChange,
  levelAt,
  lowStockCrossing,
  type MovementContext,
  planFills,
  type Product,
  type ProductDetails,
  type ProductStock,
  type StockTransaction,
} from '@stock/domain';
import { levelChangedEvent } from './webhook-events';

/** How stock changes behave beside the plan: the low-stock alert's hysteresis, and the events for webhooks. */
export interface StockChangeSettings {
  /** LOW_STOCK_HYSTERESIS: how far above its threshold a low product must come back to be restored (default 1). */
  readonly lowStockHysteresis: number;
  /**
   * WEBHOOKS=on: write the events only outside listeners take, in the change's transaction: one stock.level.changed
   * per ledger movement, stock.reservation.held and .ended for every hold. It also turns the one-statement paths off
   * (adjustAtOnce, replaceAtOnce): they write no outbox row, so every change then runs in a transaction.
   */
  readonly webhookEvents?: boolean;
}

export const DEFAULT_STOCK_CHANGE_SETTINGS: StockChangeSettings = { lowStockHysteresis: 1 };

/** How much a change moves what is available: on hand in, held out, backordered out. */
function availableDelta(changes: readonly LevelChange[], backordered: number): number {
  return changes.reduce((sum, { onHand, reserved }) => sum + onHand - reserved, 0) - backordered;
}

/**
 * Applies a plan to a product its transaction locked, and writes the
 * low-stock event it causes in the same transaction. Whether it crosses the
 * threshold is decided from this change's own before (the locked product) and
 * after, and the alert flag moves in the same write, so concurrent changes
 * see each crossing exactly once.
 */
export async function applyPlan(
  tx: StockTransaction,
  stock: ProductStock,
  changes: readonly LevelChange[],
  backordered: number,
  context: MovementContext,
  settings: StockChangeSettings,
): Promise<Product> {
  const { product } = stock;
  const after = product.availableQuantity + availableDelta(changes, backordered);
  const crossing = lowStockCrossing(product, after, settings.lowStockHysteresis);
  const alert = crossing.alert === product.stock.lowStockAlert ? {} : { lowStockAlert: crossing.alert };
  const appended: AppendedMovement[] | undefined = settings.webhookEvents ? [] : undefined;
  const changed = await tx.levels.apply(
    product.id,
    changes,
    { ...(backordered !== 0 && { backordered }), ...alert },
    context,
    appended,
  );
  await addLevelEvents(tx, changed, appended);
  if (crossing.event) {
    const data = { productId: product.id, available: after, threshold: product.lowStockThreshold };
    await tx.outbox.add(newEvent(crossing.event, data, context.at));
  }
  return changed;
}

/**
 * Stores a new product, and with webhook events on writes the stock.level.changed of its first movement (its
 * `created` one, at the default location where its stock starts) in the same transaction.
 */
export async function addProduct(
  tx: StockTransaction,
  details: ProductDetails,
  context: MovementContext,
  settings: Pick<StockChangeSettings, 'webhookEvents'>,
): Promise<Product> {
  const product = await tx.products.add(details, context);
  if (settings.webhookEvents) {
    const [created] = await tx.movements.list(product.id, { after: 0, limit: 1 });
    const level = { locationId: DEFAULT_LOCATION_ID, onHand: product.quantityInStock, reserved: 0 };
    if (created) await addLevelEvents(tx, product, [{ ...created, ...level, at: context.at }]);
  }
  return product;
}

/** One stock.level.changed per movement a change appended, in ledger order, in its transaction (webhookEvents). */
export async function addLevelEvents(
  tx: StockTransaction,
  product: Pick<Product, 'id' | 'sku'>,
  appended: readonly AppendedMovement[] | undefined,
): Promise<void> {
  for (const movement of appended ?? []) await tx.outbox.add(levelChangedEvent(product.id, product.sku, movement));
}

/**
 * Stock arrived at `locationId` (an adjustment up, a transfer received or
 * cancelled): it fills the product's backordered holds there, oldest first,
 * each fill one movement, in the transaction that brought the stock. Answers
 * the product after.
 */
export async function fillBackorders(
  tx: StockTransaction,
  product: Product,
  locationId: number,
  context: MovementContext,
  settings: StockChangeSettings,
): Promise<Product> {
  if (product.backorderedQuantity === 0) return product;
  const backorders = await tx.reservations.backorders(product.id);
  let stock = (await tx.levels.lock(product.id))!;
  for (const fill of planFills(levelAt(stock, locationId), backorders)) {
    const filled = await applyPlan(
      tx,
      stock,
      [fillChange(fill)],
      -fill.quantity,
      { ...context, reservationId: fill.reservationId },
      settings,
    );
    await tx.reservations.recordFill(product.id, fill);
    stock = {
      product: filled,
      levels: stock.levels.map((level) =>
        level.locationId === locationId ? { ...level, reserved: level.reserved + fill.quantity } : level,
      ),
    };
  }
  return stock.product;
}
