import { Money } from '@commerce/shared-kernel';
import type {
  OrderPayment,
  OrderRefund,
  OrderRefundStatus,
  PaymentStatus,
  RefusableCall,
} from '../payments/order-payment';
import { type Allocation, Order, type OrderStatus, type Shortage } from './order';

/** A payment as JSON: money in cents, times in ISO. */
export interface PaymentSnapshot {
  provider: string;
  intentId: string;
  clientSecret: string;
  status: PaymentStatus;
  amountCents: number;
  currency: string;
  capturedCents: number;
  refundedCents: number;
  lastError?: string;
  refusedCall?: RefusableCall;
  lastEventAt?: string;
}

/** A refund as JSON: money in cents, times in ISO. */
export interface RefundSnapshot {
  id: string;
  amountCents: number;
  reason: string;
  status: OrderRefundStatus;
  providerRefundId?: string;
  failureReason?: string;
  createdAt: string;
}

export function paymentSnapshot(payment: OrderPayment): PaymentSnapshot {
  return {
    provider: payment.provider,
    intentId: payment.intentId,
    clientSecret: payment.clientSecret,
    status: payment.status,
    amountCents: payment.amount.cents,
    currency: payment.currency,
    capturedCents: payment.capturedAmount.cents,
    refundedCents: payment.refundedAmount.cents,
    ...(payment.lastError !== undefined && { lastError: payment.lastError }),
    ...(payment.refusedCall !== undefined && { refusedCall: payment.refusedCall }),
    ...(payment.lastEventAt !== undefined && { lastEventAt: payment.lastEventAt.toISOString() }),
  };
}

export function paymentFromSnapshot(snapshot: PaymentSnapshot): OrderPayment {
  const { amountCents, capturedCents, refundedCents, lastError, refusedCall, lastEventAt, ...rest } = snapshot;
  return {
    ...rest,
    amount: Money.fromCents(amountCents),
    capturedAmount: Money.fromCents(capturedCents),
    refundedAmount: Money.fromCents(refundedCents),
    ...(lastError !== undefined && { lastError }),
    ...(refusedCall !== undefined && { refusedCall }),
    ...(lastEventAt !== undefined && { lastEventAt: new Date(lastEventAt) }),
  };
}

export function refundSnapshot(refund: OrderRefund): RefundSnapshot {
  return {
    id: refund.id,
    amountCents: refund.amount.cents,
    reason: refund.reason,
    status: refund.status,
    ...(refund.providerRefundId !== undefined && { providerRefundId: refund.providerRefundId }),
    ...(refund.failureReason !== undefined && { failureReason: refund.failureReason }),
    createdAt: refund.createdAt.toISOString(),
  };
}

export function refundFromSnapshot(snapshot: RefundSnapshot): OrderRefund {
  const { amountCents, providerRefundId, failureReason, createdAt, ...rest } = snapshot;
  return {
    ...rest,
    amount: Money.fromCents(amountCents),
    ...(providerRefundId !== undefined && { providerRefundId }),
    ...(failureReason !== undefined && { failureReason }),
    createdAt: new Date(createdAt),
  };
}

/** An order as JSON, money in cents and times in ISO: how idempotency records and the orders table's lines keep it. */
export interface OrderSnapshot {
  id: string;
  buyer: string;
  status: OrderStatus;
  /**
   * allocations is absent from what was written before stock said where it holds a line: read as none;
   * shippedQuantity and returnedQuantity from what was written before shipments: read as 0.
   */
  lines: {
    productId: number;
    name: string;
    unitPriceCents: number;
    quantity: number;
    allocations?: Allocation[];
    shippedQuantity?: number;
    returnedQuantity?: number;
  }[];
  reservationId?: string;
  reservationExpiresAt?: string;
  shortages?: Shortage[];
  failureReason?: string;
  paymentToRelease?: true;
  /** Absent before the order had one, and from what was written before payments. */
  payment?: PaymentSnapshot;
  /** Absent from what was written before refunds: read as none. */
  refunds?: RefundSnapshot[];
  createdAt: string;
  updatedAt: string;
  version: number;
}

/** An order as JSON: for idempotency records, and for the orders table's lines (money in cents, times in ISO). */
export function orderSnapshot(order: Order): OrderSnapshot {
  return {
    id: order.id,
    buyer: order.buyer,
    status: order.status,
    lines: order.lines.map(
      ({ productId, name, unitPrice, quantity, allocations, shippedQuantity, returnedQuantity }) => ({
        productId,
        name,
        unitPriceCents: unitPrice.cents,
        quantity,
        allocations: [...allocations],
        shippedQuantity,
        returnedQuantity,
      }),
    ),
    ...(order.reservationId !== undefined && { reservationId: order.reservationId }),
    ...(order.reservationExpiresAt !== undefined && { reservationExpiresAt: order.reservationExpiresAt.toISOString() }),
    ...(order.shortages !== undefined && { shortages: [...order.shortages] }),
    ...(order.failureReason !== undefined && { failureReason: order.failureReason }),
    ...(order.paymentToRelease && { paymentToRelease: true }),
    ...(order.payment !== undefined && { payment: paymentSnapshot(order.payment) }),
    refunds: order.refunds.map(refundSnapshot),
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
    version: order.version,
  };
}

export function orderFromSnapshot(snapshot: OrderSnapshot): Order {
  const lines = snapshot.lines.map(
    ({ productId, name, unitPriceCents, quantity, allocations = [], shippedQuantity = 0, returnedQuantity = 0 }) => {
      const unitPrice = Money.fromCents(unitPriceCents);
      const lineTotal = unitPrice.times(quantity);
      return { productId, name, unitPrice, quantity, lineTotal, allocations, shippedQuantity, returnedQuantity };
    },
  );
  return Order.restore({
    id: snapshot.id,
    buyer: snapshot.buyer,
    status: snapshot.status,
    lines,
    total: lines.reduce((sum, line) => sum.plus(line.lineTotal), Money.fromCents(0)),
    ...(snapshot.reservationId !== undefined && { reservationId: snapshot.reservationId }),
    ...(snapshot.reservationExpiresAt !== undefined && {
      reservationExpiresAt: new Date(snapshot.reservationExpiresAt),
    }),
    ...(snapshot.shortages !== undefined && { shortages: snapshot.shortages }),
    ...(snapshot.failureReason !== undefined && { failureReason: snapshot.failureReason }),
    ...(snapshot.paymentToRelease && { paymentToRelease: true }),
    ...(snapshot.payment !== undefined && { payment: paymentFromSnapshot(snapshot.payment) }),
    refunds: (snapshot.refunds ?? []).map(refundFromSnapshot),
    createdAt: new Date(snapshot.createdAt),
    updatedAt: new Date(snapshot.updatedAt),
    version: snapshot.version,
  });
}
