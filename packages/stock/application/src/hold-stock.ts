import type { Clock } from '@platform/kernel';
import {
  type Reservation,
  type ReservationRequest,
  type Shortage,
  StockShortageError,
  type StockTransaction,
  UnknownProductsError,
} from '@stock/domain';

export interface ReservationOutcome {
  readonly reservation: Reservation;
  /** False when the reference already had a reservation, which is answered instead of a second hold. */
  readonly created: boolean;
}

export interface ReserveStockSettings {
  readonly clock: Clock;
  readonly newId: () => string;
  /** How long a hold lasts when the request does not say. */
  readonly defaultTtlSeconds: number;
}

/** Whose hold it is: an API caller's, which it owns, or an order's. */
export type HoldFor = { readonly origin: 'api'; readonly owner: string } | { readonly origin: 'order' };

/**
 * Holds every line of `request` or none, inside the caller's transaction.
 * Products are held in id order, so two reservations never wait on each
 * other's rows in opposite orders. A reference that already has a reservation
 * of the same owner (or, for an order, of the orders) answers it. Short stock
 * throws StockShortageError and an unknown product UnknownProductsError: the
 * caller's transaction must then roll back, which undoes the holds already
 * made. The ledger records the owner as the movements' actor; an order's
 * movements have none.
 */
export async function holdStock(
  tx: StockTransaction,
  request: ReservationRequest,
  settings: ReserveStockSettings,
  holder: HoldFor,
  requestId?: string,
): Promise<ReservationOutcome> {
  const find = () =>
    holder.origin === 'order'
      ? tx.reservations.findForOrder(request.reference)
      : tx.reservations.findByReference(holder.owner, request.reference);
  const existing = await find();
  if (existing) return { reservation: existing, created: false };
  const now = settings.clock();
  const owner = holder.origin === 'api' ? holder.owner : undefined;
  const reservation: Reservation = {
    id: settings.newId(),
    reference: request.reference,
    origin: holder.origin,
    ...(owner !== undefined && { owner }),
    status: 'held',
    lines: request.lines,
    expiresAt: new Date(now.getTime() + (request.ttlSeconds ?? settings.defaultTtlSeconds) * 1000),
    createdAt: now,
    updatedAt: now,
  };
  // Claimed first: a concurrent reservation for the same reference waits here for this one, then answers it.
  if ((await tx.reservations.claim(reservation)) === 'taken') return { reservation: (await find())!, created: false };
  const known = new Set(
    (await tx.products.findMany(request.lines.map((line) => line.productId))).map((product) => product.id),
  );
  const unknown = request.lines.map((line) => line.productId).filter((id) => !known.has(id));
  if (unknown.length > 0) throw new UnknownProductsError(unknown);
  const shortages: Shortage[] = [];
  for (const { productId, quantity } of request.lines) {
    const outcome = await tx.products.hold(productId, quantity, {
      at: now,
      reservationId: reservation.id,
      requestId,
      actor: owner,
    });
    if (outcome.status === 'short') shortages.push({ productId, requested: quantity, available: outcome.available });
    if (outcome.status === 'not-found') throw new UnknownProductsError([productId]);
  }
  // Throwing rolls back the holds already made and the claim: nothing is held.
  if (shortages.length > 0) throw new StockShortageError(shortages);
  return { reservation, created: true };
}
