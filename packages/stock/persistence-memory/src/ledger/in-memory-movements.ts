import type { InMemoryTransaction } from '@platform/persistence/memory';
import type { AppendedMovement, Movement, MovementContext, StockMovement } from '@stock/domain';
import type { InMemoryStockTables } from '../in-memory-stock-tables';

/**
 * Appends movements of `productId`'s ledger as the aggregate decided them,
 * staged in `tx` with the change's context: each gets the next id, and the
 * product's sequence counter moves to the last one's (staged too, so a
 * rollback leaves no gap). Answers them as appended, in ledger order.
 */
export function appendMovements(
  tables: InMemoryStockTables,
  tx: InMemoryTransaction,
  productId: number,
  movements: readonly Movement[],
  context: MovementContext,
): AppendedMovement[] {
  const traceId = context.traceId ?? tables.traceId?.();
  return movements.map((movement) => {
    const id = tables.nextMovementId();
    const { sequence, kind, locationId } = movement;
    const reservation = movement.reservationId ?? context.reservationId;
    const stored: StockMovement = {
      id,
      productId,
      locationId,
      kind,
      quantityDelta: movement.quantityDelta,
      reservedDelta: movement.reservedDelta,
      committedDelta: movement.committedDelta,
      qualityControlDelta: movement.qualityControlDelta,
      damagedDelta: movement.damagedDelta,
      quantityAfter: movement.quantityAfter,
      reservedAfter: movement.reservedAfter,
      reasonCode: movement.reasonCode,
      actor: context.actor,
      sequence,
      at: context.at,
      ...(movement.transferId !== undefined && { transferId: movement.transferId }),
      ...(context.reason !== undefined && { reason: context.reason }),
      ...(reservation !== undefined && { reservationId: reservation }),
      ...(context.requestId !== undefined && { requestId: context.requestId }),
      ...(traceId !== undefined && { traceId }),
    };
    tables.movements.set(id, stored, tx);
    tables.movementSequences.set(productId, sequence, tx);
    const { onHand, reserved, committed, qualityControl, damaged } = movement;
    return { id, sequence, kind, locationId, onHand, reserved, committed, qualityControl, damaged, at: context.at };
  });
}
