import type { Clock } from '@platform/kernel';
import {
  type AllocationStrategy,
  DEFAULT_LOCATION_ID,
  type HeldLine,
  isRefusal,
  type Location,
  LocationNotFoundError,
  ORDER_FLOW_ACTOR,
  type ProductStock,
  type Reservation,
  type ReservationRequest,
  type Shortage,
  StockShortageError,
  type StockTransaction,
  UnknownProductsError,
} from '@stock/domain';
import { saveChange, type StockChangeSettings } from '../stock/stock-changes';
import { reservationHeldEvent } from '../webhooks/webhook-events';

export interface ReservationOutcome {
  readonly reservation: Reservation;
  /** False when the reference already had a reservation, which is answered instead of a second hold. */
  readonly created: boolean;
}

export interface ReserveStockSettings extends Partial<StockChangeSettings> {
  readonly clock: Clock;
  readonly newId: () => string;
  /** How long a hold lasts when the request does not say. */
  readonly defaultTtlSeconds: number;
  /** RESERVATION_ALLOCATION: how a line that names no location is spread over them (default priority). */
  readonly allocation?: AllocationStrategy;
}

/** Whose hold it is: an API caller's, which it owns, or an order's. */
export type HoldFor = { readonly origin: 'api'; readonly owner: string } | { readonly origin: 'order' };

/**
 * Holds every line of `request` or none, inside the caller's transaction.
 * Products are locked in id order, so two reservations never wait on each
 * other's rows in opposite orders. Each line is allocated by the aggregate
 * (ProductStock.hold): at the location it names, or across locations by the strategy,
 * splitting where one location has too few; what none has is backordered when
 * the request allows it. A reference that already has a reservation of the
 * same owner (or, for an order, of the orders) answers it. Short stock throws
 * StockShortageError, an unknown product UnknownProductsError and an unknown
 * location LocationNotFoundError: the caller's transaction must then roll
 * back, which undoes the holds already made. The ledger records the owner as
 * the movements' actor; an order's movements have none.
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
  const named = request.lines.some(({ locationId }) => locationId !== undefined && locationId !== DEFAULT_LOCATION_ID);
  let locations = named ? await locationsOf(tx, request) : undefined;
  const locked: ProductStock[] = [];
  const unknown: number[] = [];
  for (const { productId } of request.lines) {
    const stock = await tx.stock.lock(productId);
    if (stock) locked.push(stock);
    else unknown.push(productId);
  }
  if (unknown.length > 0) throw new UnknownProductsError(unknown);
  // Only several levels need the locations, to rank them (ProductStock.hold): a product stocked at one place has one
  // order.
  if (!locations && locked.some((stock) => stock.levels.length > 1)) locations = await tx.locations.list();
  const strategy = settings.allocation ?? 'priority';
  const policy = { lowStockHysteresis: settings.lowStockHysteresis ?? 1 };
  const shortages: Shortage[] = [];
  const held: HeldLine[] = [];
  // An order's hold is made by the order flow; an API hold by its owner.
  const context = { at: now, reservationId: reservation.id, requestId, actor: owner ?? ORDER_FLOW_ACTOR };
  for (const [index, line] of request.lines.entries()) {
    const stock = locked[index]!;
    const hold = stock.hold({ ...line, allowBackorder: request.allowBackorder }, locations ?? [], strategy, policy);
    if (isRefusal(hold)) {
      shortages.push({ productId: line.productId, requested: line.quantity, available: hold.available });
      continue;
    }
    if (shortages.length > 0) continue; // nothing will be held: the rest is only checked, to name every shortage
    await saveChange(tx, hold.change, context, settings);
    await tx.reservations.recordHold(reservation.id, line.productId, hold.plan);
    held.push({ ...line, allocations: hold.plan.allocations, backorderedQuantity: hold.plan.backordered });
  }
  // Throwing rolls back the holds already made and the claim: nothing is held.
  if (shortages.length > 0) throw new StockShortageError(shortages);
  const made: Reservation = { ...reservation, lines: held };
  // For outside listeners (webhooks): every hold, an order's or an API caller's, in its transaction.
  if (settings.webhookEvents) await tx.outbox.add(reservationHeldEvent(made, now));
  return { reservation: made, created: true };
}

/**
 * The locations a request's lines may take from, read when a line names one
 * other than the default: each one a line names must exist, and the strategy
 * ranks them all for the lines that name none.
 */
async function locationsOf(tx: StockTransaction, request: ReservationRequest): Promise<Location[]> {
  const locations = await tx.locations.list();
  const known = new Set(locations.map((location) => location.id));
  for (const { locationId } of request.lines)
    if (locationId !== undefined && locationId !== DEFAULT_LOCATION_ID && !known.has(locationId))
      throw new LocationNotFoundError(locationId);
  return locations;
}
