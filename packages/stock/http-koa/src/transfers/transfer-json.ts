import type { StockTransfer } from '@stock/domain';

export function transferJson({ createdAt, updatedAt, ...transfer }: StockTransfer) {
  const { id, productId, fromLocationId, toLocationId, quantity, reference, status } = transfer;
  return {
    id,
    productId,
    fromLocationId,
    toLocationId,
    quantity,
    reference,
    status,
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}
