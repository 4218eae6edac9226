import { isProductId, LINE_MAX_QUANTITY, Money, ORDER_MAX_LINES } from '@commerce/shared-kernel';
import { allValid, INT32_MAX, Invalid } from '@platform/kernel';
import { OrderStateConflictError, PaymentNotCapturedError, RefundExceedsCapturedError } from '../errors';
import {
  committedRefunds,
  type OrderPayment,
  type OrderRefund,
  type PaymentWork,
  type RefusableCall,
  succeededRefunds,
} from '../payments/order-payment';
import type { Authorisation, RefundStatus } from '../payments/payment-provider';
import type { OrderStatus } from './order-status';

/**
 * pending → reserved (stock held; sales asks the provider for an authorisation
 * of the total) → paid (the provider's webhook says the total is authorised;
 * stock commits the units: they wait to ship) → partially_shipped → shipped (stock's shipments) → returned (every
 * shipped unit came back). Or: pending → rejected (not enough stock, or no answer from stock in time); pending |
 * reserved | paid → cancelled (a paid one owes its payment back:
 * paymentToRelease); reserved → expired (the hold lapsed before payment); paid
 * → unfulfilled (paid after the hold lapsed: stock could not commit, the
 * payment is owed back). rejected, cancelled, expired, unfulfilled and
 * returned are final.
 *
 * The payment: created when the order is reserved, authorised by the buyer at
 * the provider (which makes the order paid, when the amount is the total),
 * captured at the first shipment, cancelled when the order will never ship,
 * refunded on request (never more than was captured). What sales owes the
 * provider is read off the state (paymentWork) and done outside any
 * transaction; what the provider says comes back as events, each guarded by
 * the payment's state, so duplicates and reordering change nothing.
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

/**
 * The failureReason of an order stock never answered in time (its placed event or stock's answer was dead-lettered,
 * or stock fell that far behind): sales rejects it itself and tells stock it is cancelled, so any hold is released.
 */
export const STOCK_UNANSWERED = 'stock-unanswered';

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
   * true while money held or taken for an order that will not ship (cancelled after payment, unfulfilled, or authorised
   * after it died) is still to be given back; absent once the provider released or refunded it.
   */
  readonly paymentToRelease?: true;
  /** The authorisation, once sales asked the provider for one (when stock held the order). */
  readonly payment?: OrderPayment;
  /** Money given back, oldest first. */
  readonly refunds: readonly OrderRefund[];
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Starts at 1 and grows with every change: the order's ETag. */
  readonly version: number;
}

/** The statuses of a paid order, as far as stock's shipments and returns have taken it. */
const AFTER_PAYMENT: readonly OrderStatus[] = ['paid', 'partially_shipped', 'shipped', 'returned'];

/** The statuses of an order that will never ship: money held or taken for it is given back. */
const WITHOUT_FULFILMENT: readonly OrderStatus[] = ['rejected', 'cancelled', 'expired', 'unfulfilled'];

/** A pending refund as the provider settled it: succeeded, or failed (a canceled one too) with why. */
function settled(refund: OrderRefund, status: RefundStatus, failureReason?: string): OrderRefund {
  if (status === 'succeeded') return { ...refund, status: 'succeeded' };
  return { ...refund, status: 'failed', failureReason: failureReason ?? `The provider's refund is ${status}.` };
}

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
  declare readonly payment?: OrderPayment;
  declare readonly refunds: readonly OrderRefund[];
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
    return new Order({
      id,
      buyer,
      status: 'pending',
      lines: priced,
      total,
      refunds: [],
      createdAt: at,
      updatedAt: at,
      version: 1,
    });
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
   * Stock has not answered an order placed at or before `deadline`: pending → rejected, stock-unanswered, so that every
   * order is decided in bounded time. The caller tells stock the order is cancelled (it releases a hold it made, or
   * refuses the order when it sees it later). An answer that arrives after finds the order decided and changes nothing.
   */
  stockUnanswered(deadline: Date, at: Date): Outcome {
    if (this.status !== 'pending' || this.createdAt > deadline) return this.unchanged();
    return this.move({ status: 'rejected', shortages: [], failureReason: STOCK_UNANSWERED }, at);
  }

  /**
   * Stock committed the order's hold: its units wait to ship. The order stays where it is (paid: waiting to ship) and
   * learns the reservation if it did not know it. Before payment (see the class's comment) it still waits to be paid.
   */
  reservationCommitted(reservationId: string, at: Date): Outcome {
    if (this.reservationId !== undefined || !this.isIn('pending', 'reserved', 'paid')) return this.unchanged();
    return this.move({ reservationId }, at);
  }

  /** Stock could not commit (the hold had lapsed): paid → unfulfilled, never shipped; its payment is owed back. */
  commitFailed(reason: string, at: Date): Outcome {
    if (this.status !== 'paid') return this.unchanged();
    return this.move({ status: 'unfulfilled', failureReason: reason, paymentToRelease: true }, at);
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

  /**
   * What sales owes the provider now, one call at a time: an authorisation for a reserved order that has none; a
   * refund not sent yet; the capture of an authorisation once a unit shipped; the cancel of an authorisation (or of one
   * not confirmed yet) for an order that will never ship, or one that did not match the total. Undefined: nothing.
   */
  paymentWork(): PaymentWork | undefined {
    const payment = this.payment;
    if (!payment) return this.status === 'reserved' ? { kind: 'authorise' } : undefined;
    const unsent = this.refunds.find((refund) => refund.status === 'pending' && refund.providerRefundId === undefined);
    if (unsent) return { kind: 'refund', refund: unsent };
    const call = this.callOwed(payment);
    return call === undefined || call === payment.refusedCall ? undefined : { kind: call };
  }

  /** The capture or cancel the payment's state asks of the provider, whether or not it refused it before. */
  private callOwed(payment: OrderPayment): RefusableCall | undefined {
    if (payment.status === 'requires_payment_method' && this.isIn(...WITHOUT_FULFILMENT)) return 'cancel';
    if (payment.status !== 'authorized') return undefined;
    if (this.isIn('partially_shipped', 'shipped', 'returned')) return 'capture';
    return this.isIn(...AFTER_PAYMENT) ? undefined : 'cancel';
  }

  /**
   * The provider refused for good the capture or cancel sales owed it for `intentId`: the payment says why and which
   * call, and the call is not made again (paymentWork). A refusal of a call the order no longer owes changes nothing.
   */
  paymentCallRefused(intentId: string, call: RefusableCall, reason: string, at: Date): Outcome {
    const payment = this.paymentFor(intentId, undefined);
    if (!payment || this.paymentWork()?.kind !== call) return this.unchanged();
    return this.move({ payment: { ...payment, lastError: reason, refusedCall: call } }, at);
  }

  /** The provider made the authorisation sales asked for: the order shows it, for its buyer to confirm. */
  authorisationCreated(provider: string, authorisation: Authorisation, currency: string, at: Date): Outcome {
    if (this.payment) return this.unchanged();
    const zero = Money.fromCents(0);
    const payment: OrderPayment = {
      provider,
      intentId: authorisation.intentId,
      clientSecret: authorisation.clientSecret,
      status: 'requires_payment_method',
      amount: this.total,
      currency,
      capturedAmount: zero,
      refundedAmount: zero,
    };
    return this.move({ payment }, at);
  }

  /**
   * The provider holds `amount` for the order. Only the order's total in its currency pays a reserved order
   * (reserved → paid); any other amount is recorded with why, and given back (paymentWork), as is money held for an
   * order that will not ship (paymentToRelease). A duplicate, a late event, or one about another intent: nothing.
   */
  paymentAuthorized(intentId: string, amount: Money, currency: string, occurredAt: Date, at: Date): Outcome {
    const payment = this.paymentFor(intentId, occurredAt);
    if (payment?.status !== 'requires_payment_method') return this.unchanged();
    const { lastError: _declined, refusedCall: _refused, ...rest } = payment;
    const authorized: OrderPayment = { ...rest, status: 'authorized', lastEventAt: occurredAt };
    if (!amount.equals(this.total) || currency !== payment.currency) {
      const lastError = `The provider authorised ${amount.toString()} ${currency}, not the order's total ${this.total.toString()} ${payment.currency}: the authorisation is given back.`;
      return this.move({ payment: { ...authorized, lastError } }, at);
    }
    if (this.status === 'reserved') return this.move({ status: 'paid', payment: authorized }, at);
    const lastError = `The order is ${this.status}: the authorisation is given back.`;
    return this.move({ payment: { ...authorized, lastError }, paymentToRelease: true }, at);
  }

  /** The buyer's confirmation was declined: the payment still waits for a method, and says why. */
  authorisationFailed(intentId: string, reason: string, occurredAt: Date, at: Date): Outcome {
    const payment = this.paymentFor(intentId, occurredAt);
    if (payment?.status !== 'requires_payment_method') return this.unchanged();
    return this.move({ payment: { ...payment, lastError: reason, lastEventAt: occurredAt } }, at);
  }

  /**
   * `amount` was taken (the capture's answer, or its event, whichever comes first). Money taken for an order that will
   * not ship (a cancel that raced the shipment) is refunded whole at once.
   */
  paymentCaptured(intentId: string, amount: Money, at: Date, occurredAt?: Date): Outcome {
    const payment = this.paymentFor(intentId, occurredAt);
    if (payment?.status !== 'authorized') return this.unchanged();
    const captured: OrderPayment = {
      ...payment,
      status: 'captured',
      capturedAmount: amount,
      ...(occurredAt && { lastEventAt: occurredAt }),
    };
    if (!this.isIn(...WITHOUT_FULFILMENT) || amount.cents === 0) return this.move({ payment: captured }, at);
    const release: OrderRefund = {
      id: `release-${this.id}`,
      amount,
      reason: `The order is ${this.status}: what was captured is given back.`,
      status: 'pending',
      createdAt: at,
    };
    return this.move({ payment: captured, refunds: [...this.refunds, release], paymentToRelease: true }, at);
  }

  /** The provider released the authorisation (sales cancelled it, or the provider did): nothing is held any more. */
  paymentCanceled(intentId: string, at: Date, occurredAt?: Date): Outcome {
    const payment = this.paymentFor(intentId, occurredAt);
    if (payment?.status !== 'requires_payment_method' && payment?.status !== 'authorized') return this.unchanged();
    const { paymentToRelease: _released, ...order } = this;
    const canceled: OrderPayment = { ...payment, status: 'canceled', ...(occurredAt && { lastEventAt: occurredAt }) };
    return this.moveFrom(order, { payment: canceled }, at);
  }

  /**
   * A merchant gives back `amount` of what was captured: a pending refund, sent to the provider afterwards. Refused
   * before capture (PaymentNotCapturedError) and beyond what was captured less the refunds pending or made
   * (RefundExceedsCapturedError).
   */
  refundRequested(id: string, amount: Money, reason: string, at: Date): Outcome {
    const payment = this.payment;
    if (payment?.status !== 'captured' && payment?.status !== 'refunded') throw new PaymentNotCapturedError(this.id);
    const refundable = payment.capturedAmount.cents - committedRefunds(this.refunds).cents;
    if (amount.cents > refundable)
      throw new RefundExceedsCapturedError(this.id, Money.fromCents(refundable).toString());
    const refund: OrderRefund = { id, amount, reason, status: 'pending', createdAt: at };
    return this.move({ refunds: [...this.refunds, refund] }, at);
  }

  /** The provider made refund `id` (`providerRefundId`), perhaps settled already. */
  refundSent(id: string, providerRefundId: string, status: RefundStatus, at: Date): Outcome {
    const refund = this.refunds.find((r) => r.id === id);
    if (!refund || refund.providerRefundId !== undefined) return this.unchanged();
    const sent = { ...refund, providerRefundId };
    return this.withRefund(status === 'pending' ? sent : settled(sent, status), at);
  }

  /** The provider refused refund `id`: it failed, and its amount may be refunded again. */
  refundRefused(id: string, reason: string, at: Date): Outcome {
    const refund = this.refunds.find((r) => r.id === id);
    if (refund?.status !== 'pending' || refund.providerRefundId !== undefined) return this.unchanged();
    return this.withRefund({ ...refund, status: 'failed', failureReason: reason }, at);
  }

  /**
   * The provider settled a refund: succeeded (the payment's refundedAmount grows; refunded once it is all that was
   * captured) or failed. A refund settled already, or one this order does not know, changes nothing.
   */
  refundSettled(providerRefundId: string, status: RefundStatus, at: Date, failureReason?: string): Outcome {
    const refund = this.refunds.find((r) => r.providerRefundId === providerRefundId);
    if (refund?.status !== 'pending' || status === 'pending') return this.unchanged();
    return this.withRefund(settled(refund, status, failureReason), at);
  }

  /** Whether a refund of this order waits for the provider's id: an event about an unknown refund may be about it. */
  awaitsProviderRefund(): boolean {
    return this.refunds.some((refund) => refund.status === 'pending' && refund.providerRefundId === undefined);
  }

  /** The order with `refund` in place of the one of its id, and the payment's refunded amount and status after it. */
  private withRefund(refund: OrderRefund, at: Date): Outcome {
    const refunds = this.refunds.map((r) => (r.id === refund.id ? refund : r));
    const payment = this.payment!;
    const refundedAmount = succeededRefunds(refunds);
    const whole = refundedAmount.equals(payment.capturedAmount) && refundedAmount.cents > 0;
    const status = whole ? 'refunded' : payment.status;
    if (!whole) return this.move({ refunds, payment: { ...payment, refundedAmount, status } }, at);
    const { paymentToRelease: _released, ...order } = this;
    return this.moveFrom(order, { refunds, payment: { ...payment, refundedAmount, status } }, at);
  }

  /** The payment an event about `intentId` is about, unless it is another intent's or older than what was applied. */
  private paymentFor(intentId: string, occurredAt: Date | undefined): OrderPayment | undefined {
    const payment = this.payment;
    if (payment?.intentId !== intentId) return undefined;
    if (occurredAt && payment.lastEventAt && occurredAt < payment.lastEventAt) return undefined;
    return payment;
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
    return this.moveFrom(this, changes, at);
  }

  /** `state` (this order, perhaps with optional members left out) with `changes`, one version on. */
  private moveFrom(state: Omit<OrderState, 'paymentToRelease'>, changes: Partial<OrderState>, at: Date): Outcome {
    return { changed: true, order: new Order({ ...state, ...changes, updatedAt: at, version: this.version + 1 }) };
  }
}
