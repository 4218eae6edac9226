import { newEvent } from '@commerce/contracts';
import type { Clock } from '@platform/kernel';
import {
  BackorderNotFilledError,
  type HeldLine,
  isReachableBy,
  isRefusal,
  type LineHold,
  ORDER_FLOW_ACTOR,
  type Reservation,
  type ReservationLine,
  ReservationNotFoundError,
  ReservationNotHeldError,
  type Settlement,
  type ShippedUnits,
  type StockTransaction,
  transitionFrom,
  unshipped,
} from '@stock/domain';
import { DEFAULT_STOCK_CHANGE_SETTINGS, saveChange, type StockChangeSettings } from '../stock/stock-changes';
import { reservationEndedEvent } from '../webhooks/webhook-events';

/**
 * Who settles: an API caller, who reaches its own holds only, or the order flow (sales' events), which settles its
 * orders' holds.
 */
export type Settler = { readonly by: 'caller'; readonly caller: string } | { readonly by: 'order-flow' };

const EVENT_OF = {
  committed: 'stock.reservation.committed',
  released: 'stock.reservation.released',
  expired: 'stock.reservation.expired',
} as const;

/** A caller reaches its own holds (isReachableBy); the order flow its orders' holds. */
function reaches(settler: Settler, reservation: Reservation): boolean {
  return settler.by === 'order-flow' ? reservation.origin === 'order' : isReachableBy(reservation, settler.caller);
}

/** How many times a settlement looks again when another one changed the reservation between its read and its write. */
const ATTEMPTS = 3;

/**
 * Ends a held reservation in `to`, with its lines, inside the caller's
 * transaction: commit makes an order's held quantities committed (they wait
 * to ship) and takes an API hold's out of stock at once; release and expiry
 * make them available again. A caller reaches only its own holds
 * (isReachableBy): any other is ReservationNotFoundError, as if it did not
 * exist. Repeating a settlement already made answers the reservation as it
 * is; one the reservation's status forbids throws ReservationNotHeldError. The
 * status change is conditional (held → to), so two settlements racing end in
 * one. An order's reservation also writes the matching event (committed,
 * released, expired) to the outbox, whether a message or the expiry sweeper
 * settled it; with webhook events on, every reservation writes stock.reservation.ended.
 */
export async function settleReservation(
  tx: StockTransaction,
  id: string,
  to: Settlement,
  clock: Clock,
  settler: Settler,
  requestId?: string,
  settings: StockChangeSettings = DEFAULT_STOCK_CHANGE_SETTINGS,
): Promise<Reservation> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await tx.reservations.findById(id);
    // Owner and origin never change, so what this read allows holds for the conditional write below.
    if (!current || !reaches(settler, current)) throw new ReservationNotFoundError(id);
    const decision = transitionFrom(current.status, to);
    if (decision === 'unchanged') return current;
    if (decision === 'refuse') throw new ReservationNotHeldError(id, current.status);
    const at = clock();
    const moved = await tx.reservations.transition(id, to, at);
    if (!moved) continue;
    const asMoved = await settleLines(tx, [moved], to, at, settings, requestId);
    // The reservation as the transition read it, unless its holds changed since (a fill before the lock, a drop).
    return asMoved ? moved : (await tx.reservations.findById(id))!;
  }
  throw new Error(`Reservation ${id} kept changing under ${ATTEMPTS} attempts to settle it.`);
}

/**
 * Expires the held reservations `ids` (rows the caller claimed) in one go,
 * and answers those it moved; one no longer held is left as it is. Their
 * products are settled in product id order across all of them, the order
 * every reservation locks its products in, so a sweep never waits on a
 * product a reservation holds while that reservation waits on one the sweep
 * holds (a deadlock on PostgreSQL).
 */
export async function expireReservations(
  tx: StockTransaction,
  ids: readonly string[],
  clock: Clock,
  settings: StockChangeSettings = DEFAULT_STOCK_CHANGE_SETTINGS,
): Promise<Reservation[]> {
  const at = clock();
  const moved: Reservation[] = [];
  for (const id of ids) {
    const reservation = await tx.reservations.transition(id, 'expired', at);
    if (reservation) moved.push(reservation);
  }
  await settleLines(tx, moved, 'expired', at, settings);
  return moved;
}

/**
 * Settles the lines of reservations just moved to `to`, in product id order,
 * and writes the event of each order's reservation. Each line is settled at
 * exactly the locations its hold was allocated to (ProductStock.settle): commit
 * makes an order's units committed there and takes an API hold's out of stock,
 * release and expiry give them back there and drop its backordered units. Committing a line whose backordered units
 * have not arrived throws BackorderNotFilledError; a product that refuses
 * (the stores' guard) throws too: the caller's transaction rolls back, so a
 * reservation never changes status while its stock does not. Answers whether
 * every line's hold, as read under its product's lock, is the one the
 * reservations carried, and stays so (no backorder dropped).
 */
async function settleLines(
  tx: StockTransaction,
  reservations: readonly Reservation[],
  to: Settlement,
  at: Date,
  settings: StockChangeSettings,
  requestId?: string,
): Promise<boolean> {
  let asCarried = true;
  for (const { line, reservation } of inProductOrder(reservations)) {
    const { productId } = line;
    const reservationId = reservation.id;
    const stock = await tx.stock.lock(productId);
    const hold = await tx.reservations.holdOf(reservationId, productId);
    if (hold.backordered > 0 || !carries(line, hold)) asCarried = false;
    if (!stock)
      throw new Error(`Product ${productId}, held by reservation ${reservationId}, is gone: nothing was changed.`);
    // An order's units wait, committed, to be shipped; an API hold has no order to ship, so its units leave at once.
    const settled = stock.settle(hold, to, settings, reservation.origin === 'order' ? 'to-ship' : 'at-once');
    if (isRefusal(settled)) throw new BackorderNotFilledError(reservationId, productId, settled.backordered);
    await saveChange(tx, settled, { at, reservationId, requestId, actor: actorFor(reservation) }, settings);
    if (hold.backordered > 0) await tx.reservations.dropBackorder(reservationId, productId);
  }
  await writeSettled(tx, reservations, to, at, settings);
  return asCarried;
}

/**
 * Releases an order's committed reservation inside the caller's transaction (sales.order.cancelled after payment):
 * the reservation moves from committed to released, and each line's committed units that no shipment took (`shipped`,
 * the order's shipment lines) are given back where they are committed (ProductStock.releaseCommitted), in product id
 * order; then stock.reservation.released, as for a hold. Answers the reservation released, or undefined when it was
 * not committed any more (another release came first).
 */
export async function releaseCommitted(
  tx: StockTransaction,
  reservation: Reservation,
  shipped: readonly ShippedUnits[],
  at: Date,
  settings: StockChangeSettings,
  requestId?: string,
): Promise<Reservation | undefined> {
  const moved = await tx.reservations.transition(reservation.id, 'released', at, 'committed');
  if (!moved) return undefined;
  for (const { line } of inProductOrder([moved])) {
    const { productId } = line;
    const stock = await tx.stock.lock(productId);
    if (!stock)
      throw new Error(`Product ${productId}, committed by reservation ${moved.id}, is gone: nothing was changed.`);
    const left = unshipped(productId, await tx.reservations.holdOf(moved.id, productId), shipped);
    if (left.length === 0) continue;
    const context = { at, reservationId: moved.id, requestId, actor: actorFor(moved) };
    await saveChange(tx, stock.releaseCommitted(left, settings), context, settings);
  }
  await writeSettled(tx, [moved], 'released', at, settings);
  return moved;
}

/** The lines of reservations in product id order, the order every writer locks products in (stable within one). */
function inProductOrder(reservations: readonly Reservation[]) {
  const lines = reservations.flatMap((reservation) => reservation.lines.map((line) => ({ line, reservation })));
  return lines.sort((a, b) => a.line.productId - b.line.productId);
}

/**
 * Whom a settlement is made for: an API hold's owner (the caller itself, or the sweeper on its behalf), an order's
 * hold's order flow.
 */
function actorFor(reservation: Reservation): string {
  return reservation.owner ?? ORDER_FLOW_ACTOR;
}

/** The events of reservations settled to `to`: each order's, and with webhook events on, every one's. */
async function writeSettled(
  tx: StockTransaction,
  reservations: readonly Reservation[],
  to: Settlement,
  at: Date,
  settings: StockChangeSettings,
): Promise<void> {
  for (const reservation of reservations) {
    if (reservation.origin === 'order')
      await tx.outbox.add(
        newEvent(EVENT_OF[to], { orderId: reservation.reference, reservationId: reservation.id }, at),
      );
    // For outside listeners (webhooks): every settlement, of an order's hold or an API caller's.
    if (settings.webhookEvents) await tx.outbox.add(reservationEndedEvent(reservation, to, at));
  }
}

/** Whether a reservation's line shows `hold`: the same allocations (location id order) and backordered units. */
function carries(line: ReservationLine | HeldLine, hold: LineHold): boolean {
  if (!('allocations' in line) || line.backorderedQuantity !== hold.backordered) return false;
  const { allocations } = line;
  return (
    allocations.length === hold.allocations.length &&
    allocations.every(
      (a, i) => a.locationId === hold.allocations[i]!.locationId && a.quantity === hold.allocations[i]!.quantity,
    )
  );
}
