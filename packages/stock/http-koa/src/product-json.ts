import type { Product, Reservation, StockMovement } from '@stock/domain';

/** A product as the API shows it, camelCase, price as a JSON number that prints exactly as stored. */
export function productJson(product: Product) {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    price: product.price.toNumber(),
    quantityInStock: product.quantityInStock,
    reservedQuantity: product.reservedQuantity,
    availableQuantity: product.availableQuantity,
  };
}

export function reservationJson({ id, reference, status, lines, expiresAt, createdAt, updatedAt }: Reservation) {
  return {
    id,
    reference,
    status,
    lines,
    expiresAt: expiresAt.toISOString(),
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

/** Who a movement was made for stays inside: the ledger shows a reader its own ids, never other callers' names. */
export function movementJson({ at, actor: _actor, ...movement }: StockMovement) {
  return { ...movement, at: at.toISOString() };
}
