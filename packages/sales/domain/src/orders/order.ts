import { isProductId, LINE_MAX_QUANTITY, Money, ORDER_MAX_LINES } from '@commerce/shared-kernel';
import { allValid, INT32_MAX, Invalid } from '@platform/kernel';
import { OrderStateConflictError } from '../errors';
import type { OrderStatus } from './order-status';

/**
 * pending → reserved (stock held) → paid → completed (stock committed).
 * Or: pending → rejected (not enough stock); pending | reserved → cancelled;
 * reserved → expired (the hold lapsed before payment); paid → unfulfilled
 * (paid after the hold lapsed: stock could not be committed, the payment is
 * owed back). completed, rejected, cancelled, expired and unfulfilled are final.
 *
 * Stock is the truth about its holds: when one is settled through stock's own
 * API rather than by sales' events, the order follows. Released before payment
 * → cancelled (failureReason reservation-released: it can no longer be paid);
 * committed before payment → completed (stock considers the goods sold).
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
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Starts at 1 and grows with every change: the order's ETag. */
  readonly version: number;
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
    lines: readonly Omit<OrderLine, 'lineTotal' | 'allocations'>[],
    at: Date,
  ): Order {
    const priced = lines.map((line) => ({ ...line, lineTotal: line.unitPrice.times(line.quantity), allocations: [] }));
    const total = priced.reduce((sum, line) => sum.plus(line.lineTotal), Money.fromCents(0));
    return new Order({ id, buyer, status: 'pending', lines: priced, total, createdAt: at, updatedAt: at, version: 1 });
  }

  /** An order read back from storage. */
  static restore(state: OrderState): Order {
    return new Order(state);
  }

  /** The buyer cancels: pending or reserved → cancelled; a cancelled order stays so. */
  cancel(at: Date): Outcome {
    if (this.status === 'cancelled') return this.unchanged();
    if (this.status !== 'pending' && this.status !== 'reserved')
      throw new OrderStateConflictError(this.id, this.status, 'cancelled');
    return this.move({ status: 'cancelled' }, at);
  }

  /** The payment provider's callback: reserved → paid; a paid (or completed) order stays so. */
  pay(at: Date): Outcome {
    if (this.status === 'paid' || this.status === 'completed') return this.unchanged();
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
   * Stock committed the order's hold: paid → completed. Before payment (the
   * hold was committed through stock's API; pending when that event overtook
   * the confirmation) stock considers the goods sold: → completed as well.
   */
  reservationCommitted(reservationId: string, at: Date): Outcome {
    if (!this.holds(reservationId) || !this.isIn('pending', 'reserved', 'paid')) return this.unchanged();
    return this.move({ status: 'completed', reservationId }, at);
  }

  /** Stock could not commit (the hold had lapsed): paid → unfulfilled, never completed. */
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
   * Whether a confirmation tells where this order's confirmed hold is, which the order does not know yet: the hold is
   * this one, and was confirmed (a hold that lapsed or was released before its confirmation came is not shown).
   */
  private learnsAllocations(reservationId: string, held: readonly HeldLine[]): boolean {
    return (
      held.length > 0 &&
      this.reservationId === reservationId &&
      this.isIn('reserved', 'paid', 'completed') &&
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
