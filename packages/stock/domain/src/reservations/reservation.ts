import { isProductId, ORDER_MAX_LINES } from '@commerce/shared-kernel';
import { isLocationId } from '../locations/location';
import { allValid, INT32_MAX, Invalid } from '@platform/kernel';
import { text } from '../products/product';
import type { Allocation, LineHold } from '../stock/levels';

/**
 * held → committed | released | expired. `rejected` never held anything: it
 * records that an order's lines will not be held (stock was short, a product
 * was gone, or the order was cancelled before stock saw it placed: then it has
 * no lines, a tombstone), so a late or repeated request for the same reference
 * is answered the same way instead of holding stock for a dead order.
 */
export type ReservationStatus = 'held' | 'committed' | 'released' | 'expired' | 'rejected';

/**
 * Who asked for the hold: a caller of the HTTP API, which owns it, or an order
 * the sales service placed (`sales.order.placed`, reference = the order id),
 * which only the order flow settles. Changes to an order's reservation are
 * published as events, whether its messages or the expiry sweeper made them.
 */
export type ReservationOrigin = 'api' | 'order';

export interface ReservationLine {
  readonly productId: number;
  readonly quantity: number;
  /** Hold only at this location; absent: allocated across locations by RESERVATION_ALLOCATION. */
  readonly locationId?: number;
}

/** A line as its reservation holds it: where its units are, and how many still wait as backordered. */
export interface HeldLine extends ReservationLine {
  readonly allocations: readonly Allocation[];
  /** Units held beyond stock (allowBackorder) that no arrival has filled yet. */
  readonly backorderedQuantity: number;
}

/** An order's lines are held as one reservation, so a reservation holds as many lines as an order may. */
export const RESERVATION_MAX_LINES = ORDER_MAX_LINES;
export const REFERENCE_MAX_LENGTH = 200;
/** A hold lasts at most a week: longer is a forgotten order, not a reservation. */
export const RESERVATION_MAX_TTL_SECONDS = 7 * 24 * 60 * 60;

const referenceText = text(REFERENCE_MAX_LENGTH);

export const reservationFields = {
  reference: (value: string): string | Invalid => {
    const trimmed = value.trim();
    return trimmed.length === 0 ? new Invalid('is required and must not be blank') : referenceText(trimmed);
  },
  ttlSeconds: (value: number): number | Invalid => {
    if (!Number.isInteger(value) || value < 1 || value > RESERVATION_MAX_TTL_SECONDS)
      return new Invalid(`must be an integer from 1 to ${RESERVATION_MAX_TTL_SECONDS}`);
    return value;
  },
  /**
   * Lines for the same product are summed, and the lines sorted by product id: that is the order rows are locked in.
   * Lines of one product name the same location, or none.
   */
  lines: (value: readonly ReservationLine[]): ReservationLine[] | Invalid => {
    if (value.length === 0) return new Invalid('must hold at least one line');
    if (value.length > RESERVATION_MAX_LINES) return new Invalid(`must hold at most ${RESERVATION_MAX_LINES} lines`);
    const byProduct = new Map<number, ReservationLine>();
    for (const { productId, quantity, locationId } of value) {
      if (!isProductId(productId)) return new Invalid(`has a productId that is not an integer from 1 to ${INT32_MAX}`);
      if (!Number.isInteger(quantity) || quantity < 1 || quantity > INT32_MAX)
        return new Invalid(`has a quantity that is not an integer from 1 to ${INT32_MAX}`);
      if (locationId !== undefined && !isLocationId(locationId))
        return new Invalid(`has a locationId that is not an integer from 1 to ${INT32_MAX}`);
      const seen = byProduct.get(productId);
      if (seen && seen.locationId !== locationId)
        return new Invalid(`has lines for product ${productId} at different locations; hold it at one, or at none`);
      byProduct.set(productId, {
        productId,
        quantity: (seen?.quantity ?? 0) + quantity,
        ...(locationId !== undefined && { locationId }),
      });
    }
    const lines = [...byProduct.values()].sort((a, b) => a.productId - b.productId);
    if (lines.some((line) => line.quantity > INT32_MAX))
      return new Invalid(`sums to more than ${INT32_MAX} for one product`);
    return lines;
  },
};

export interface ReservationRequestInput {
  readonly reference: string;
  readonly lines: readonly ReservationLine[];
  readonly ttlSeconds?: number;
  /** Units beyond what is available may be held as backordered, within each product's backorderLimit. */
  readonly allowBackorder?: boolean;
}

/** What a caller asks to hold: every line or none. */
export class ReservationRequest {
  private constructor(
    readonly reference: string,
    /** One per product, in product id order. */
    readonly lines: readonly ReservationLine[],
    readonly ttlSeconds: number | undefined,
    readonly allowBackorder: boolean,
  ) {}

  /** Answers the request, or throws one ValidationError naming every broken field. */
  static create(input: ReservationRequestInput): ReservationRequest {
    const { reference, lines, ttlSeconds } = allValid({
      reference: reservationFields.reference(input.reference),
      lines: reservationFields.lines(input.lines),
      ttlSeconds: input.ttlSeconds === undefined ? undefined : reservationFields.ttlSeconds(input.ttlSeconds),
    });
    return new ReservationRequest(reference, lines, ttlSeconds, input.allowBackorder === true);
  }
}

/**
 * Who calls the API when the service checks no tokens (AUTH_ISSUER unset):
 * every request is this one principal, so it owns every hold made then, and
 * the holds made before reservations had owners.
 */
export const ANONYMOUS_CALLER = 'anonymous';

/**
 * A hold on stock for a reference: every line held, or none. A reference is
 * unique among its owner's holds (API holds) or among the orders' (order
 * holds): two callers may use the same reference, and neither reaches the
 * other's hold through it.
 */
export interface Reservation {
  readonly id: string;
  readonly reference: string;
  readonly origin: ReservationOrigin;
  /** The caller (token subject) that made an API hold; absent exactly when `origin` is 'order'. */
  readonly owner?: string;
  readonly status: ReservationStatus;
  /** As requested; once held (and after), each with its allocations and backordered units. */
  readonly lines: readonly (ReservationLine | HeldLine)[];
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * What a transition asked of a reservation in `status` does: go ahead (it is
 * held), nothing (it is already where the transition leads: repeating a commit
 * or a release is harmless), or refuse.
 */
export function transitionFrom(
  status: ReservationStatus,
  to: 'committed' | 'released' | 'expired',
): 'apply' | 'unchanged' | 'refuse' {
  if (status === 'held') return 'apply';
  if (status === to) return 'unchanged';
  // Releasing what already expired, or never held anything, leaves it as released would: nothing held either way.
  if (to === 'released' && (status === 'expired' || status === 'rejected')) return 'unchanged';
  return 'refuse';
}

/** Units of an order that a shipment took from a location (a shipment's line). */
export interface ShippedUnits {
  readonly productId: number;
  readonly locationId: number;
  readonly quantity: number;
}

/**
 * What of a committed line is still committed, per location: its allocations less what shipments took from each
 * (those units left; only the rest can be released). Locations with nothing left are left out.
 */
export function unshipped(productId: number, hold: LineHold, shipped: readonly ShippedUnits[]): Allocation[] {
  return hold.allocations
    .map(({ locationId, quantity }) => {
      const gone = shipped
        .filter((line) => line.productId === productId && line.locationId === locationId)
        .reduce((sum, line) => sum + line.quantity, 0);
      return { locationId, quantity: Math.max(0, quantity - gone) };
    })
    .filter(({ quantity }) => quantity > 0);
}

/**
 * Whether `caller` may read, commit or release a reservation through the API
 * (OWASP API1): an API hold only by the caller that made it; an order's hold
 * by nobody, since only the order flow (sales' events) settles it. A refusal
 * answers as if the reservation did not exist, so its id reveals nothing.
 */
export function isReachableBy(reservation: Reservation, caller: string): boolean {
  return reservation.origin === 'api' && reservation.owner === caller;
}
