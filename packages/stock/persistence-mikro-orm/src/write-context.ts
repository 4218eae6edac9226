import type { MovementContext, MovementKind, MovementOf } from '@stock/domain';

/** The trace a write is made in, when the context does not say: the composition root hands OpenTelemetry's. */
export type TraceIdProvider = () => string | undefined;

/**
 * The JSON a write leaves in product.write_context for the ledger trigger:
 * the kind of change, its location (the default one when it names none) and
 * transfer, its reason, reservation, request, actor and trace, and its time
 * (ISO for PostgreSQL's timestamptz, epoch ms for SQLite).
 */
export function writeContext(
  movement: MovementKind | MovementOf,
  { at, reason, reservationId, requestId, actor, traceId }: MovementContext,
  traceOf?: TraceIdProvider,
): string {
  const { kind, locationId, transferId } = typeof movement === 'string' ? { kind: movement } : movement;
  return JSON.stringify({
    kind,
    locationId,
    transferId,
    reason,
    reservationId,
    requestId,
    actor,
    traceId: traceId ?? traceOf?.(),
    at: at.toISOString(),
    atMs: at.getTime(),
  });
}
