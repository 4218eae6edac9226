import { newEvent } from '@commerce/contracts';
import type { Clock } from '@platform/kernel';
import { type Reservation, ReservationNotFoundError, ReservationNotHeldError, type StockTransaction, transitionFrom } from '@stock/domain';

type Settlement = 'committed' | 'released' | 'expired';

const EVENT_OF = { committed: 'stock.reservation.committed', released: 'stock.reservation.released', expired: 'stock.reservation.expired' } as const;

/** How many times a settlement looks again when another one changed the reservation between its read and its write. */
const ATTEMPTS = 3;

/**
 * Ends a held reservation in `to`, with its lines, inside the caller's
 * transaction: commit takes the held quantities out of stock, release and
 * expiry make them available again. Repeating a settlement already made
 * answers the reservation as it is; one the reservation's status forbids throws
 * ReservationNotHeldError. The status change is conditional (held → to), so two
 * settlements racing end in one. An order's reservation also writes the
 * matching event (committed, released, expired) to the outbox, whichever path
 * settled it: a message, the HTTP API, or the expiry sweeper.
 */
export async function settleReservation(tx: StockTransaction, id: string, to: Settlement, clock: Clock, requestId?: string): Promise<Reservation> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await tx.reservations.findById(id);
    if (!current) throw new ReservationNotFoundError(id);
    const decision = transitionFrom(current.status, to);
    if (decision === 'unchanged') return current;
    if (decision === 'refuse') throw new ReservationNotHeldError(id, current.status);
    const at = clock();
    const moved = await tx.reservations.transition(id, to, at);
    if (!moved) continue;
    await settleLines(tx, [moved], to, at, requestId);
    return moved;
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
export async function expireReservations(tx: StockTransaction, ids: readonly string[], clock: Clock): Promise<Reservation[]> {
  const at = clock();
  const moved: Reservation[] = [];
  for (const id of ids) {
    const reservation = await tx.reservations.transition(id, 'expired', at);
    if (reservation) moved.push(reservation);
  }
  await settleLines(tx, moved, 'expired', at);
  return moved;
}

/**
 * Settles the lines of reservations just moved to `to`, in product id order,
 * and writes the event of each order's reservation. A product that refuses
 * (it holds less than the reservation says, or is gone) throws: the caller's
 * transaction rolls back, so a reservation never changes status while its
 * stock does not.
 */
async function settleLines(tx: StockTransaction, reservations: readonly Reservation[], to: Settlement, at: Date, requestId?: string): Promise<void> {
  const lines = reservations.flatMap((reservation) => reservation.lines.map((line) => ({ ...line, reservationId: reservation.id })));
  // Stable: a product's lines keep their reservations' order.
  lines.sort((a, b) => a.productId - b.productId);
  for (const { productId, quantity, reservationId } of lines) {
    const settled = await tx.products.settle(productId, quantity, to, { at, reservationId, requestId });
    if (!settled) throw new Error(`Product ${productId} refused to settle ${quantity} held by reservation ${reservationId}: it holds less than that, or is gone. Nothing was changed.`);
  }
  for (const reservation of reservations) {
    if (reservation.origin === 'order') await tx.outbox.add(newEvent(EVENT_OF[to], { orderId: reservation.reference, reservationId: reservation.id }, at));
  }
}
