import type { Shipment, StockReturn } from '@stock/domain';

export function shipmentJson({ id, orderId, lines, carrier, trackingNumber, createdAt }: Shipment) {
  return {
    id,
    orderId,
    lines: lines.map(({ productId, locationId, quantity }) => ({ productId, locationId, quantity })),
    carrier,
    trackingNumber,
    createdAt: createdAt.toISOString(),
  };
}

export function returnJson({ id, orderId, lines, reason, createdAt }: StockReturn) {
  return {
    id,
    orderId,
    lines: lines.map(({ productId, locationId, quantity, disposition }) => ({
      productId,
      locationId,
      quantity,
      disposition,
    })),
    reason,
    createdAt: createdAt.toISOString(),
  };
}
