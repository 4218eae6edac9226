import type { InMemoryTransaction } from '@platform/memory';
import type { MovementContext, MovementOf, Product } from '@stock/domain';
import type { InMemoryStockTables } from './in-memory-stock-tables';

/**
 * Appends one movement of `product`'s ledger, staged in `tx`: the deltas at
 * the change's location, the product's totals after it.
 */
export function appendMovement(
  tables: InMemoryStockTables,
  tx: InMemoryTransaction,
  product: Pick<Product, 'id' | 'quantityInStock' | 'reservedQuantity'>,
  movement: MovementOf & { readonly onHand: number; readonly reserved: number },
  context: MovementContext,
): void {
  const id = tables.nextMovementId();
  tables.movements.set(
    id,
    {
      id,
      productId: product.id,
      locationId: movement.locationId,
      ...(movement.transferId !== undefined && { transferId: movement.transferId }),
      kind: movement.kind,
      quantityDelta: movement.onHand,
      reservedDelta: movement.reserved,
      quantityAfter: product.quantityInStock,
      reservedAfter: product.reservedQuantity,
      at: context.at,
      ...(context.reason !== undefined && { reason: context.reason }),
      ...(context.reservationId !== undefined && { reservationId: context.reservationId }),
      ...(context.requestId !== undefined && { requestId: context.requestId }),
      ...(context.actor !== undefined && { actor: context.actor }),
    },
    tx,
  );
}
