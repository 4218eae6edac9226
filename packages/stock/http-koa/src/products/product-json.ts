import type { Location, Product, Reservation, StockMovement, StockTransfer } from '@stock/domain';
import type { StockLevelView } from '@stock/application';

/** A product as the API shows it, camelCase, price as a JSON number that prints exactly as stored. */
export function productJson(product: Product) {
  return {
    id: product.id,
    sku: product.sku,
    name: product.name,
    description: product.description,
    price: product.price.toNumber(),
    quantityInStock: product.quantityInStock,
    reservedQuantity: product.reservedQuantity,
    availableQuantity: product.availableQuantity,
    backorderLimit: product.backorderLimit,
    backorderedQuantity: product.backorderedQuantity,
    lowStockThreshold: product.lowStockThreshold,
    stockState: product.stockState,
  };
}

/**
 * A reservation's line with where it is held: its allocations and its backordered units. A line read from a record
 * made before holds had locations has neither, and shows them empty.
 */
function lineJson(line: Reservation['lines'][number]) {
  const { productId, quantity, locationId } = line;
  const allocations = 'allocations' in line ? line.allocations.map((a) => ({ ...a })) : [];
  const backorderedQuantity = 'backorderedQuantity' in line ? line.backorderedQuantity : 0;
  return { productId, quantity, ...(locationId !== undefined && { locationId }), allocations, backorderedQuantity };
}

export function reservationJson({ id, reference, status, lines, expiresAt, createdAt, updatedAt }: Reservation) {
  const shown = lines.map(lineJson);
  return {
    id,
    reference,
    status,
    lines: shown,
    backorderedQuantity: shown.reduce((sum, line) => sum + line.backorderedQuantity, 0),
    expiresAt: expiresAt.toISOString(),
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

/** Who a movement was made for stays inside: the ledger shows a reader its own ids, never other callers' names. */
export function movementJson({ at, actor: _actor, ...movement }: StockMovement) {
  return { ...movement, at: at.toISOString() };
}

export function locationJson({ id, code, name, priority }: Location) {
  return { id, code, name, priority };
}

export function stockLevelJson({ locationId, locationCode, onHand, reserved, available, incoming }: StockLevelView) {
  return { locationId, locationCode, onHand, reserved, available, incoming };
}

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
