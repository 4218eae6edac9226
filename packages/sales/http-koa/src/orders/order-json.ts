import type { Order } from '@sales/domain';

/**
 * An order as the API shows it: money as JSON numbers that print exactly as stored, times in ISO 8601, optional members
 * only when set.
 */
export function orderJson(order: Order) {
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
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
  };
}
