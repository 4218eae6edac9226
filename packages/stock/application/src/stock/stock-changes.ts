import { newEvent } from '@commerce/contracts';
import {
  DEFAULT_LOCATION_ID,
  isRefusal,
  type MovementContext,
  type Product,
  type ProductDetails,
  type StockChange,
  type StockPolicy,
  type StockTransaction,
} from '@stock/domain';
import { levelChangedEvent } from '../webhooks/webhook-events';

/** How stock changes behave beside the rules: the aggregate's policy, and the events for webhooks. */
export interface StockChangeSettings extends StockPolicy {
  /**
   * WEBHOOKS=on: write the events only outside listeners take, in the change's transaction: one stock.level.changed
   * per ledger movement, stock.reservation.held and .ended for every hold. It also turns the one-statement paths off
   * (adjustAtOnce, replaceAtOnce): they write no outbox row, so every change then runs in a transaction.
   */
  readonly webhookEvents?: boolean;
}

export const DEFAULT_STOCK_CHANGE_SETTINGS: StockChangeSettings = { lowStockHysteresis: 1 };

/**
 * Saves what the ProductStock aggregate decided, with its ledger, and in the
 * same transaction the events it causes, in the order it made them: with
 * webhook events on, one stock.level.changed per movement; each low-stock
 * crossing; and the backordered holds it filled, recorded on their
 * reservations. Answers the product after.
 */
export async function saveChange(
  tx: StockTransaction,
  change: StockChange,
  context: MovementContext,
  settings: Pick<StockChangeSettings, 'webhookEvents'>,
): Promise<Product> {
  const appended = await tx.stock.save(change, context);
  const { product } = change.after;
  let next = 0;
  for (const { movements, signal } of change.steps) {
    const made = appended.slice(next, (next += movements.length));
    if (settings.webhookEvents)
      for (const movement of made) await tx.outbox.add(levelChangedEvent(product.id, product.sku, movement));
    if (signal) {
      const data = { productId: product.id, available: signal.available, threshold: signal.threshold };
      await tx.outbox.add(newEvent(signal.event, data, context.at));
    }
  }
  for (const fill of change.fills) await tx.reservations.recordFill(product.id, fill);
  return product;
}

/**
 * Stock that arrived at `locationId` (`arrived` units: an adjustment up, a
 * transfer received or cancelled) fills the product's backordered holds
 * there first, oldest first: the change, then its fills, saved as one.
 */
export async function withFills(
  tx: StockTransaction,
  change: StockChange,
  locationId: number,
  arrived: number,
  policy: StockPolicy,
): Promise<StockChange> {
  if (!change.after.fillsOnArrival(arrived)) return change;
  const backorders = await tx.reservations.backorders(change.productId);
  return change.followedBy(change.after.fill(locationId, backorders, policy));
}

/** The change a verb answered, when the caller has already ruled its refusals out (they cannot be answered twice). */
export function decided<T extends object>(answer: T | undefined): Exclude<T, { readonly status: string }> {
  if (answer === undefined || isRefusal(answer))
    throw new Error(`The stock refused a change it had allowed from the same lock: ${JSON.stringify(answer)}.`);
  return answer as Exclude<T, { readonly status: string }>;
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
    const level = {
      locationId: DEFAULT_LOCATION_ID,
      onHand: product.quantityInStock,
      reserved: 0,
      committed: 0,
      qualityControl: 0,
      damaged: 0,
    };
    if (created)
      await tx.outbox.add(levelChangedEvent(product.id, product.sku, { ...created, ...level, at: context.at }));
  }
  return product;
}
