import type { MovementContext, MovementKind } from '@stock/domain';

/**
 * The JSON a write leaves in product.write_context for the ledger trigger:
 * the kind of change, its reason, reservation, request and actor, and its time
 * (ISO for PostgreSQL's timestamptz, epoch ms for SQLite).
 */
export function writeContext(
  kind: MovementKind,
  { at, reason, reservationId, requestId, actor }: MovementContext,
): string {
  return JSON.stringify({ kind, reason, reservationId, requestId, actor, at: at.toISOString(), atMs: at.getTime() });
}
