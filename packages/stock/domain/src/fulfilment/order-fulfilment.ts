import type { Reservation } from '../reservations/reservation';
import type { Returnable } from './fulfilment-errors';
import type { UnitsAt } from './fulfilment-fields';
import type { Shipment, ShipmentLine, ShipmentRequestLine } from './shipment';
import type { ReturnLine, StockReturn } from './stock-return';

/** Why stock refuses to ship what was asked of an order; nothing moves. */
export type OrderShipmentRefusal =
  /** Nothing of the order is committed and unshipped: unknown, not paid, cancelled, or shipped in full. */
  | { readonly status: 'order-not-shippable' }
  /** Some line asks for more than is committed and unshipped where it asks; what can still ship of its products. */
  | { readonly status: 'exceeds-committed'; readonly shippable: readonly UnitsAt[] };

/** A return brings back more of some product than the order shipped and has not had back; nothing moves. */
export interface OrderReturnRefusal {
  readonly status: 'exceeds-shipped';
  /** What can still come back of each product the return named. */
  readonly returnable: readonly Returnable[];
}

const key = (productId: number, locationId: number) => `${productId}/${locationId}`;

/** The products some lines name, each once, in id order. */
const productsOf = (lines: readonly { readonly productId: number }[]) =>
  [...new Set(lines.map((line) => line.productId))].sort((a, b) => a - b);

/**
 * An order's fulfilment as stock keeps it: what its reservation committed at each location, what its shipments took
 * and what its returns brought back. What it can still ship of a product at a location is its committed allocation
 * there less the units shipped from there; what it can still get back of a product is what it shipped less what came
 * back, wherever. Only a committed order's hold ships: a held one is not paid, and a released one was cancelled
 * (whatever of it had not shipped was given back then).
 */
export class OrderFulfilment {
  private constructor(
    /** Committed and unshipped units per product, at its locations in its allocations' order; only positive ones. */
    private readonly unshipped: ReadonlyMap<number, readonly UnitsAt[]>,
    /** Shipped less returned, per product. */
    private readonly outstanding: ReadonlyMap<number, number>,
  ) {}

  static of(
    reservation: Reservation | undefined,
    shipments: readonly Shipment[],
    returns: readonly StockReturn[],
  ): OrderFulfilment {
    const shipped = new Map<string, number>();
    const outstanding = new Map<number, number>();
    for (const { productId, locationId, quantity } of shipments.flatMap((shipment) => shipment.lines)) {
      shipped.set(key(productId, locationId), (shipped.get(key(productId, locationId)) ?? 0) + quantity);
      outstanding.set(productId, (outstanding.get(productId) ?? 0) + quantity);
    }
    for (const { productId, quantity } of returns.flatMap((stockReturn) => stockReturn.lines))
      outstanding.set(productId, (outstanding.get(productId) ?? 0) - quantity);
    const unshipped = new Map<number, UnitsAt[]>();
    const lines = reservation?.status === 'committed' ? reservation.lines : [];
    for (const line of lines) {
      if (!('allocations' in line)) continue;
      const left = line.allocations
        .map(({ locationId, quantity }) => ({
          productId: line.productId,
          locationId,
          quantity: quantity - (shipped.get(key(line.productId, locationId)) ?? 0),
        }))
        .filter((units) => units.quantity > 0);
      if (left.length > 0) unshipped.set(line.productId, left);
    }
    return new OrderFulfilment(unshipped, outstanding);
  }

  /** What the order can still ship, per product and location, in product id order, then its allocations' order. */
  get shippable(): UnitsAt[] {
    return [...this.unshipped.keys()].sort((a, b) => a - b).flatMap((productId) => this.unshipped.get(productId)!);
  }

  /** Whether anything of the order is committed and not shipped yet. */
  get isShippable(): boolean {
    return this.unshipped.size > 0;
  }

  /**
   * The lines of a shipment of `lines`: each takes from the location it names, or (none named) from the order's
   * allocations of its product in their order, only units committed there and not shipped; summed per product and
   * location, in product id then location id order. Refused, as a value, when any line finds too few.
   */
  planShipment(lines: readonly ShipmentRequestLine[]): ShipmentLine[] | OrderShipmentRefusal {
    if (!this.isShippable) return { status: 'order-not-shippable' };
    const left = new Map(this.shippable.map((units) => [key(units.productId, units.locationId), units.quantity]));
    const taken = new Map<string, ShipmentLine>();
    let short = false;
    for (const { productId, quantity, locationId } of lines) {
      const from = locationId === undefined ? (this.unshipped.get(productId) ?? []) : [{ locationId }];
      let wanted = quantity;
      for (const at of from) {
        const where = key(productId, at.locationId);
        const take = Math.min(wanted, left.get(where) ?? 0);
        if (take === 0) continue;
        left.set(where, left.get(where)! - take);
        const before = taken.get(where)?.quantity ?? 0;
        taken.set(where, { productId, locationId: at.locationId, quantity: before + take });
        wanted -= take;
      }
      if (wanted > 0) short = true;
    }
    if (short) return { status: 'exceeds-committed', shippable: this.shippableOf(productsOf(lines)) };
    return [...taken.values()].sort((a, b) => a.productId - b.productId || a.locationId - b.locationId);
  }

  /** What can still ship of `productIds`, per location. */
  shippableOf(productIds: readonly number[]): UnitsAt[] {
    return productIds.flatMap((productId) => this.unshipped.get(productId) ?? []);
  }

  /** Units of a product the order shipped and has not had back. */
  returnable(productId: number): number {
    return this.outstanding.get(productId) ?? 0;
  }

  /** Refuses, as a value, a return of more units of a product than `returnable`; undefined when it may be received. */
  checkReturn(lines: readonly ReturnLine[]): OrderReturnRefusal | undefined {
    const asked = new Map<number, number>();
    for (const { productId, quantity } of lines) asked.set(productId, (asked.get(productId) ?? 0) + quantity);
    if ([...asked].every(([productId, quantity]) => quantity <= this.returnable(productId))) return undefined;
    const returnable = productsOf(lines).map((productId) => ({ productId, quantity: this.returnable(productId) }));
    return { status: 'exceeds-shipped', returnable };
  }
}
