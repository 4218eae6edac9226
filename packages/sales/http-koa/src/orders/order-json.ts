import type { Order, OrderPayment, OrderRefund } from '@sales/domain';

/** Who sees an order: its buyer sees the payment's client secret, anyone else (an admin) does not. */
export interface OrderAudience {
  readonly seesClientSecret: (order: Order) => boolean;
}

/** Everyone sees every member: the service runs without tokens. */
export const EVERYONE: OrderAudience = { seesClientSecret: () => true };

function paymentJson(payment: OrderPayment, withSecret: boolean) {
  return {
    provider: payment.provider,
    intentId: payment.intentId,
    ...(withSecret && { clientSecret: payment.clientSecret }),
    status: payment.status,
    amount: payment.amount.toNumber(),
    currency: payment.currency,
    capturedAmount: payment.capturedAmount.toNumber(),
    refundedAmount: payment.refundedAmount.toNumber(),
    ...(payment.lastError !== undefined && { lastError: payment.lastError }),
    ...(payment.refusedCall !== undefined && { refusedCall: payment.refusedCall }),
  };
}

/** A refund as the API shows it (the provider's id stays sales' business). */
export function refundJson(refund: OrderRefund) {
  return {
    id: refund.id,
    amount: refund.amount.toNumber(),
    reason: refund.reason,
    status: refund.status,
    ...(refund.failureReason !== undefined && { failureReason: refund.failureReason }),
    createdAt: refund.createdAt.toISOString(),
  };
}

/**
 * An order as the API shows it: money as JSON numbers that print exactly as stored, times in ISO 8601, optional members
 * only when set; the payment's client secret only to whom `audience` shows it.
 */
export function orderJson(order: Order, audience: OrderAudience = EVERYONE) {
  return {
    id: order.id,
    buyer: order.buyer,
    status: order.status,
    lines: order.lines.map((line) => ({
      productId: line.productId,
      name: line.name,
      unitPrice: line.unitPrice.toNumber(),
      quantity: line.quantity,
      lineTotal: line.lineTotal.toNumber(),
      allocations: line.allocations.map(({ locationId, quantity }) => ({ locationId, quantity })),
      shippedQuantity: line.shippedQuantity,
      returnedQuantity: line.returnedQuantity,
    })),
    total: order.total.toNumber(),
    ...(order.reservationId !== undefined && { reservationId: order.reservationId }),
    ...(order.reservationExpiresAt !== undefined && { reservationExpiresAt: order.reservationExpiresAt.toISOString() }),
    ...(order.shortages !== undefined && { shortages: order.shortages }),
    ...(order.failureReason !== undefined && { failureReason: order.failureReason }),
    ...(order.paymentToRelease && { paymentToRelease: true }),
    ...(order.payment !== undefined && { payment: paymentJson(order.payment, audience.seesClientSecret(order)) }),
    refunds: order.refunds.map(refundJson),
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
  };
}
