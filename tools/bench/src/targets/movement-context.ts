import { randomUUID } from 'node:crypto';

/**
 * What the service's request gives the movements it appends: a request id of
 * its own, the caller of a service whose tokens are off, the time, no reason
 * and no trace (tracing is off in these runs).
 */
export function requestContext() {
  return { reason: null, requestId: randomUUID(), actor: 'anonymous', traceId: null, at: new Date() } as const;
}

/** A plain change's movement at one location as the ledger takes it (MovementValues), in the request's context. */
export function movementValues(
  productId: number,
  locationId: number,
  kind: 'adjusted' | 'updated',
  change: { delta: number; quantityAfter: number; reservedAfter: number; sequence: number },
) {
  const { reason, requestId, actor, traceId, at } = requestContext();
  return [
    productId,
    locationId,
    null,
    kind,
    change.delta,
    0,
    // committed, quality-control and damaged: a plain change moves none of them.
    0,
    0,
    0,
    change.quantityAfter,
    change.reservedAfter,
    // The reason code a change without one carries (the service's default for an adjustment, its kind otherwise).
    kind === 'adjusted' ? 'correction' : kind,
    reason,
    null,
    requestId,
    actor,
    traceId,
    change.sequence,
    at,
  ] as const;
}
