import { isProductId, LINE_MAX_QUANTITY, Money, ORDER_MAX_LINES } from '@commerce/shared-kernel';
import { allValid, INT32_MAX, Invalid } from '@platform/kernel';
import { OrderStateConflictError } from '../errors';
import type { OrderStatus } from './order-status';

/**
 * pending → reserved (stock held) → paid (stock commits the units: they wait
 * to ship) → partially_shipped → shipped (stock's shipments) → returned (every
 * shipped unit came back). Or: pending → rejected (not enough stock); pending |
 * reserved | paid → cancelled (a paid one owes its payment back:
 * paymentToRelease); reserved → expired (the hold lapsed before payment); paid
 * → unfulfilled (paid after the hold lapsed: stock could not commit, the
 * payment is owed back). rejected, cancelled, expired, unfulfilled and
 * returned are final.
 *
 * Stock is the truth about its holds and its units: when a hold is settled
 * through stock's own API rather than by sales' events, the order follows.
 * Released before payment → cancelled (failureReason reservation-released: it
 * can no longer be paid). Committed before payment (stock's API cannot reach an
 * order's hold, so only an older stock or a hand in its database does that)
 * moves nothing: committed units wait to ship and never expire, so the order
 * waits for its payment as before, and a cancel releases them. Units stock
 * shipped or took back for a cancelled order (a cancel racing a shipment) are
 * counted on its lines; it stays cancelled.
 */
export type { OrderStatus };

/**
 * The failureReason of an order cancelled because stock released its hold (through stock's own API), not by its buyer.
 */
export const RESERVATION_RELEASED = 'reservation-released';

export interface OrderLineRequest {
  readonly productId: number;
  readonly quantity: number;
}

/** What a buyer asks for: one line per product (same product twice is summed), in product id order. */
export class OrderRequest {
  private constructor(readonly lines: readonly OrderLineRequest[]) {}

  static create(input: { readonly lines: readonly OrderLineRequest[] }): OrderRequest {
    return new OrderRequest(allValid({ lines: orderLines(input.lines) }).lines);
  }
}

function orderLines(value: readonly OrderLineRequest[]): OrderLineRequest[] | Invalid {
  if (value.length === 0) return new Invalid('must hold at least one line');
  if (value.length > ORDER_MAX_LINES) return new Invalid(`must hold at most ${ORDER_MAX_LINES} lines`);
  const byProduct = new Map<number, number>();
  for (const { productId, quantity } of value) {
    if (!isProductId(productId)) return new Invalid(`has a productId that is not an integer from 1 to ${INT32_MAX}`);
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > LINE_MAX_QUANTITY)
      return new Invalid(`has a quantity that is not an integer from 1 to ${LINE_MAX_QUANTITY}`);
    byProduct.set(productId, (byProduct.get(productId) ?? 0) + quantity);
  }
  const lines = [...byProduct]
    .map(([productId, quantity]) => ({ productId, quantity }))
    .sort((a, b) => a.productId - b.productId);
  if (lines.some((line) => line.quantity > LINE_MAX_QUANTITY))
    return new Invalid(`sums to more than ${LINE_MAX_QUANTITY} for one product`);
  return lines;
}

/** Some of a line's units, held by stock at one of its locations. */
export interface Allocation {
  readonly locationId: number;
  readonly quantity: number;
}

/** A line stock holds, and where: what its confirmation says of one product. */
export interface HeldLine {
  readonly productId: number;
  readonly allocations: readonly Allocation[];
}

/** A line as ordered: the product's name and price as stock quoted them when the order was placed. */
export interface OrderLine {
  readonly productId: number;
  readonly name: string;
  readonly unitPrice: Money;
  readonly quantity: number;
  readonly lineTotal: Money;
  /**
   * Where stock holds the line's units, as its confirmation said: none until then, and none when it confirmed in the
   * first version of its event, which does not say.
   */
  readonly allocations: readonly Allocation[];
  /** Units stock shipped, from its shipments: 0 to quantity. */
  readonly shippedQuantity: number;
  /** Shipped units that came back (whatever stock did with them, missing ones too), from its returns: 0 to quantity. */
  readonly returnedQuantity: number;
}

/** Some units of one product, as a shipment or a return names them (per location: the order sums them). */
export interface ProductUnits {
  readonly productId: number;
  readonly quantity: number;
}

export interface Shortage {
  readonly productId: number;
  readonly requested: number;
  readonly available: number;
}

export interface OrderState {
  readonly id: string;
  /** Who placed it: the token's subject (the buyer), or "anonymous" when the service runs without tokens. */
  readonly buyer: string;
  readonly status: OrderStatus;
  readonly lines: readonly OrderLine[];
  readonly total: Money;
  readonly reservationId?: string;
  readonly reservationExpiresAt?: Date;
  /** Why stock refused the order (rejected). */
  readonly shortages?: readonly Shortage[];
  /**
   * Why stock refused the order (rejected: insufficient-stock, unknown-products, order-cancelled),
   * why a paid order could not be completed (unfulfilled), or that stock released the hold
   * itself (cancelled: reservation-released; an order the buyer cancelled has none).
   */
  readonly failureReason?: string;
  /**
   * true when the order was cancelled after its payment: the payment must be given back (cancelling the authorisation
   * is the payments' part). Absent otherwise.
   */
  readonly paymentToRelease?: true;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Starts at 1 and grows with every change: the order's ETag. */
  readonly version: number;
}

/** The statuses of a paid order, as far as stock's shipments and returns have taken it. */
const AFTER_PAYMENT: readonly OrderStatus[] = ['paid', 'partially_shipped', 'shipped', 'returned'];

/** The count of a line a shipment or a return adds to. */
type FulfilmentCount = 'shippedQuantity' | 'returnedQuantity';

/** `lines` with `quantity` units of a product added to `count`, line after line of that product, each up to its own. */
function fill(lines: readonly OrderLine[], productId: number, quantity: number, count: FulfilmentCount): OrderLine[] {
  let left = quantity;
  return lines.map((line) => {
    if (line.productId !== productId || left === 0) return line;
    const added = Math.min(left, line.quantity - line[count]);
    left -= added;
    return added === 0 ? line : { ...line, [count]: line[count] + added };
  });
}

/** Where a paid order's shipments and returns have taken it. */
function fulfilmentStatus(lines: readonly OrderLine[]): OrderStatus {
  if (lines.every((line) => line.shippedQuantity === 0)) return 'paid';
  if (lines.some((line) => line.shippedQuantity < line.quantity)) return 'partially_shipped';
  return lines.every((line) => line.returnedQuantity >= line.shippedQuantity) ? 'returned' : 'shipped';
}

/**
 * What an event or a command did to an order: moved it on, or nothing (a duplicate, or one a later state makes moot).
 */
export type Outcome =
  { readonly changed: true; readonly order: Order } | { readonly changed: false; readonly order: Order };

/**
 * An order and its state machine. Every transition is guarded by the current
 * state: a command the state does not allow throws OrderStateConflictError
 * (409); an event the state has moved past leaves the order as it is, so a
 * duplicate or a late event ends where in-order delivery would have.
 */
export class Order implements OrderState {
  // Declared, not defined: the constructor's Object.assign sets them, and absent optional ones stay absent.
  declare readonly id: string;
  declare readonly buyer: string;
  declare readonly status: OrderStatus;
  declare readonly lines: readonly OrderLine[];
  declare readonly total: Money;
  declare readonly reservationId?: string;
  declare readonly reservationExpiresAt?: Date;
  declare readonly shortages?: readonly Shortage[];
  declare readonly failureReason?: string;
  declare readonly paymentToRelease?: true;
  declare readonly createdAt: Date;
  declare readonly updatedAt: Date;
  declare readonly version: number;

  private constructor(state: OrderState) {
    Object.assign(this, state);
  }

  /** A new order, pending until stock says whether it holds its lines. */
  static place(
    id: string,
    buyer: string,
    lines: readonly Omit<OrderLine, 'lineTotal' | 'allocations' | 'shippedQuantity' | 'returnedQuantity'>[],
    at: Date,
  ): Order {
    const priced = lines.map((line) => ({
      ...line,
      lineTotal: line.unitPrice.times(line.quantity),
      allocations: [],
      shippedQuantity: 0,
      returnedQuantity: 0,
    }));
    const total = priced.reduce((sum, line) => sum.plus(line.lineTotal), Money.fromCents(0));
    return new Order({ id, buyer, status: 'pending', lines: priced, total, createdAt: at, updatedAt: at, version: 1 });
  }

  /** An order read back from storage. */
  static restore(state: OrderState): Order {
    return new Order(state);
  }

  /**
   * The buyer cancels: pending or reserved → cancelled; paid (nothing shipped yet) → cancelled, its payment to be
   * released. A cancelled order stays so; once a unit has shipped it cannot be cancelled.
   */
  cancel(at: Date): Outcome {
    if (this.status === 'cancelled') return this.unchanged();
    if (this.status === 'paid') return this.move({ status: 'cancelled', paymentToRelease: true }, at);
    if (!this.isIn('pending', 'reserved')) throw new OrderStateConflictError(this.id, this.status, 'cancelled');
    return this.move({ status: 'cancelled' }, at);
  }

  /** The payment provider's callback: reserved → paid; a paid order stays so, however far it has shipped. */
  pay(at: Date): Outcome {
    if (this.isIn(...AFTER_PAYMENT)) return this.unchanged();
    if (this.status !== 'reserved') throw new OrderStateConflictError(this.id, this.status, 'paid');
    return this.move({ status: 'paid' }, at);
  }

  /**
   * Stock held every line, at the locations `held` names: pending → reserved. After a cancel the order stays cancelled
   * (stock releases on the cancel). Stock sends its confirmation twice for one release, without and with the
   * allocations, in either order: the one with them, arriving second, adds them to the order its hold confirmed.
   */
  reservationConfirmed(reservationId: string, expiresAt: Date, at: Date, held: readonly HeldLine[] = []): Outcome {
    if (this.status === 'pending')
      return this.move(
        { status: 'reserved', reservationId, reservationExpiresAt: expiresAt, lines: this.allocated(held) },
        at,
      );
    if (!this.learnsAllocations(reservationId, held)) return this.unchanged();
    return this.move({ lines: this.allocated(held) }, at);
  }

  /** Stock will not hold the lines: pending → rejected, with why (failureReason) and the shortages, if any. */
  reservationRejected(shortages: readonly Shortage[], reason: string, at: Date): Outcome {
    if (this.status !== 'pending') return this.unchanged();
    return this.move({ status: 'rejected', shortages, failureReason: reason }, at);
  }

  /**
   * Stock committed the order's hold: its units wait to ship. The order stays where it is (paid: waiting to ship) and
   * learns the reservation if it did not know it. Before payment (see the class's comment) it still waits to be paid.
   */
  reservationCommitted(reservationId: string, at: Date): Outcome {
    if (this.reservationId !== undefined || !this.isIn('pending', 'reserved', 'paid')) return this.unchanged();
    return this.move({ reservationId }, at);
  }

  /** Stock could not commit (the hold had lapsed): paid → unfulfilled, never shipped. */
  commitFailed(reason: string, at: Date): Outcome {
    if (this.status !== 'paid') return this.unchanged();
    return this.move({ status: 'unfulfilled', failureReason: reason }, at);
  }

  /**
   * The hold lapsed before payment: reserved → expired; pending too, when the
   * expiry overtook the confirmation (which then finds the order expired). A
   * paid order waits for stock's commit outcome instead.
   */
  reservationExpired(reservationId: string, at: Date): Outcome {
    if (!this.holds(reservationId) || !this.isIn('pending', 'reserved')) return this.unchanged();
    return this.move({ status: 'expired', reservationId }, at);
  }

  /**
   * Stock released the hold without the buyer cancelling (through its own
   * API): pending | reserved → cancelled, reason reservation-released, so the
   * order cannot be paid any more. The answer to the buyer's own cancel finds
   * the order cancelled already; a paid order waits for stock's commit outcome
   * (commit_failed) instead.
   */
  reservationReleased(reservationId: string, at: Date): Outcome {
    if (!this.holds(reservationId) || !this.isIn('pending', 'reserved')) return this.unchanged();
    return this.move({ status: 'cancelled', reservationId, failureReason: RESERVATION_RELEASED }, at);
  }

  /**
   * Stock shipped `units` of the order (its lines per product and location): each product's units fill the lines of
   * that product in line order, up to each line's quantity (stock ships only committed units, so no more come). A paid
   * order is then partially_shipped until every unit shipped, then shipped. A cancelled one (the cancel raced the
   * shipment) counts them and stays cancelled; an order stock holds no committed units for is left as it is.
   */
  shipmentCreated(units: readonly ProductUnits[], at: Date): Outcome {
    return this.fulfil(units, 'shippedQuantity', at);
  }

  /**
   * Stock took back `units` of the order's shipped units, whatever their disposition (missing units count: the return
   * is settled). Counted like a shipment, each line up to its quantity; a shipped order whose every shipped unit came
   * back is returned. A return handled before its shipment (a reordered delivery) is counted at once, and the order
   * moves when the shipment comes, as it would have in order. A cancelled order counts them and stays cancelled.
   */
  returnReceived(units: readonly ProductUnits[], at: Date): Outcome {
    return this.fulfil(units, 'returnedQuantity', at);
  }

  private fulfil(units: readonly ProductUnits[], count: FulfilmentCount, at: Date): Outcome {
    if (!this.isIn(...AFTER_PAYMENT, 'cancelled')) return this.unchanged();
    const lines = units.reduce(
      (filled, { productId, quantity }) => fill(filled, productId, quantity, count),
      this.lines,
    );
    if (lines.every((line, i) => line[count] === this.lines[i]![count])) return this.unchanged();
    return this.move({ lines, status: this.status === 'cancelled' ? 'cancelled' : fulfilmentStatus(lines) }, at);
  }

  /**
   * Whether a confirmation tells where this order's confirmed hold is, which the order does not know yet: the hold is
   * this one, and was confirmed (a hold that lapsed or was released before its confirmation came is not shown).
   */
  private learnsAllocations(reservationId: string, held: readonly HeldLine[]): boolean {
    return (
      held.length > 0 &&
      this.reservationId === reservationId &&
      this.isIn('reserved', ...AFTER_PAYMENT) &&
      this.lines.every((line) => line.allocations.length === 0)
    );
  }

  /** The lines with where stock holds them; a line the confirmation does not name keeps what it had. */
  private allocated(held: readonly HeldLine[]): OrderLine[] {
    const byProduct = new Map(held.map((line) => [line.productId, line.allocations]));
    return this.lines.map((line) => {
      const allocations = byProduct.get(line.productId);
      return allocations
        ? { ...line, allocations: allocations.map(({ locationId, quantity }) => ({ locationId, quantity })) }
        : line;
    });
  }

  private isIn(...statuses: OrderStatus[]): boolean {
    return statuses.includes(this.status);
  }

  /** Whether an event about `reservationId` is about this order's hold: it is, unless the order knows another one. */
  private holds(reservationId: string): boolean {
    return this.reservationId === undefined || this.reservationId === reservationId;
  }

  private unchanged(): Outcome {
    return { changed: false, order: this };
  }

  private move(changes: Partial<OrderState>, at: Date): Outcome {
    return { changed: true, order: new Order({ ...this, ...changes, updatedAt: at, version: this.version + 1 }) };
  }
}
