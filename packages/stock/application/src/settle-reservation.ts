import { newEvent } from '@commerce/contracts';
import type { Clock } from '@platform/kernel';
import { type Reservation, ReservationNotFoundError, ReservationNotHeldError, type StockTransaction, transitionFrom } from '@stock/domain';

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
export async function settleReservation(tx: StockTransaction, id: string, to: 'committed' | 'released' | 'expired', clock: Clock, requestId?: string): Promise<Reservation> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await tx.reservations.findById(id);
    if (!current) throw new ReservationNotFoundError(id);
    const decision = transitionFrom(current.status, to);
    if (decision === 'unchanged') return current;
    if (decision === 'refuse') throw new ReservationNotHeldError(id, current.status);
    const at = clock();
    const moved = await tx.reservations.transition(id, to, at);
    if (!moved) continue;
    for (const { productId, quantity } of moved.lines) await tx.products.settle(productId, quantity, to, { at, reservationId: id, requestId });
    if (moved.origin === 'order') await tx.outbox.add(newEvent(EVENT_OF[to], { orderId: moved.reference, reservationId: moved.id }, at));
    return moved;
  }
  throw new Error(`Reservation ${id} kept changing under ${ATTEMPTS} attempts to settle it.`);
}
