import type { InMemoryTransaction } from '@platform/memory';
import type { AppendedMovement, LocationLevel, MovementContext, MovementOf, Product } from '@stock/domain';
import type { InMemoryStockTables } from './in-memory-stock-tables';

/**
 * Appends one movement of `product`'s ledger, staged in `tx`: the deltas at
 * the change's location, the product's totals after it, the product's next
 * sequence number (a counter staged in the same transaction, so a rollback
 * leaves no gap), and the trace it was made in. Answers the movement with the
 * location's level after it (`level`).
 */
export function appendMovement(
  tables: InMemoryStockTables,
  tx: InMemoryTransaction,
  product: Pick<Product, 'id' | 'quantityInStock' | 'reservedQuantity'>,
  movement: MovementOf & { readonly onHand: number; readonly reserved: number },
  context: MovementContext,
  level: Pick<LocationLevel, 'onHand' | 'reserved'>,
): AppendedMovement {
  const id = tables.nextMovementId();
  const sequence = (tables.movementSequences.get(product.id, tx) ?? 0) + 1;
  tables.movementSequences.set(product.id, sequence, tx);
  const traceId = context.traceId ?? tables.traceId?.();
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
      ...(traceId !== undefined && { traceId }),
      sequence,
    },
    tx,
  );
  const { kind, locationId } = movement;
  return { id, sequence, kind, locationId, onHand: level.onHand, reserved: level.reserved, at: context.at };
}
