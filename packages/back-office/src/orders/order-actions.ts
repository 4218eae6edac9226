import type { Order, OrderStatus } from './order-types';

/** Cents, so that sums of decimal amounts stay exact. */
const cents = (amount: number) => Math.round(amount * 100);

/** What can still be refunded: the captured amount less the refunds pending or made (a failed one frees its amount). */
export function refundable(order: Order): number {
  const captured = cents(order.payment?.capturedAmount ?? 0);
  const taken = order.refunds
    .filter((refund) => refund.status !== 'failed')
    .reduce((sum, refund) => sum + cents(refund.amount), 0);
  return Math.max(captured - taken, 0) / 100;
}

/** Stock ships the units of a paid order it committed and has not shipped yet. */
const SHIPPABLE: readonly OrderStatus[] = ['paid', 'partially_shipped'];

/**
 * The actions an order's page offers: those its state allows and the signed-in person's scopes grant (the APIs check
 * both again; this only spares a person a button that can only be refused).
 */
export function allowedActions(
  order: Order,
  scopes: ReadonlySet<string>,
): { ship: boolean; return: boolean; refund: boolean } {
  const fulfils = scopes.has('stock:fulfil');
  return {
    ship:
      fulfils && SHIPPABLE.includes(order.status) && order.lines.some((line) => line.shippedQuantity < line.quantity),
    return: fulfils && order.lines.some((line) => line.returnedQuantity < line.shippedQuantity),
    refund: scopes.has('orders:refund') && refundable(order) > 0,
  };
}

/** An order's status as a person reads it. */
export const statusLabel = (status: string) => status.replaceAll('_', ' ');
