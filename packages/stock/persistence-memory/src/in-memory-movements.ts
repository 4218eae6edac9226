import type { InMemoryTransaction } from '@platform/memory';
import type { AppendedMovement, Movement, MovementContext } from '@stock/domain';
import type { InMemoryStockTables } from './in-memory-stock-tables';

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
  return movements.map(({ onHand, reserved, reservationId, ...movement }) => {
    const id = tables.nextMovementId();
    const reservation = reservationId ?? context.reservationId;
    tables.movements.set(
      id,
      {
        id,
        productId,
        ...movement,
        at: context.at,
        ...(context.reason !== undefined && { reason: context.reason }),
        ...(reservation !== undefined && { reservationId: reservation }),
        ...(context.requestId !== undefined && { requestId: context.requestId }),
        ...(context.actor !== undefined && { actor: context.actor }),
        ...(traceId !== undefined && { traceId }),
      },
      tx,
    );
    tables.movementSequences.set(productId, movement.sequence, tx);
    const { sequence, kind, locationId } = movement;
    return { id, sequence, kind, locationId, onHand, reserved, at: context.at };
  });
}
