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
    // The named states came later: after the members clients already read, in the order of the level's.
    committedQuantity: product.committedQuantity,
    qualityControlQuantity: product.qualityControlQuantity,
    damagedQuantity: product.damagedQuantity,
  };
}

/**
 * A movement of the ledger with why (reasonCode) and who (actor) on every row; its reservation, request and trace ids
 * only when it was made for the reader (movementSeenBy, in the use case).
 */
export function movementJson({ at, ...movement }: StockMovement) {
  return { ...movement, at: at.toISOString() };
}

/** A level in every state; the named states beside reserved came later, so they follow the members clients read. */
export function stockLevelJson(level: StockLevelView) {
  const { locationId, locationCode, onHand, reserved, committed, qualityControl, damaged, available, incoming } = level;
  return { locationId, locationCode, onHand, reserved, available, incoming, committed, qualityControl, damaged };
}
