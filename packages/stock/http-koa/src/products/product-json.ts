import type { Product, StockMovement } from '@stock/domain';
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

/** Who a movement was made for stays inside: the ledger shows a reader its own ids, never other callers' names. */
export function movementJson({ at, actor: _actor, ...movement }: StockMovement) {
  return { ...movement, at: at.toISOString() };
}

export function stockLevelJson({ locationId, locationCode, onHand, reserved, available, incoming }: StockLevelView) {
  return { locationId, locationCode, onHand, reserved, available, incoming };
}
