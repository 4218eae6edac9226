/** Why a product's stock or reserved quantity changed. */
export type MovementKind = 'created' | 'updated' | 'adjusted' | 'reserved' | 'committed' | 'released' | 'expired';

/**
 * One entry of a product's append-only stock ledger. For every product, the
 * sum of its quantityDelta is its quantityInStock and the sum of its
 * reservedDelta its reservedQuantity.
 */
export interface StockMovement {
  readonly id: number;
  readonly productId: number;
  readonly kind: MovementKind;
  readonly quantityDelta: number;
  readonly reservedDelta: number;
  readonly quantityAfter: number;
  readonly reservedAfter: number;
  readonly reason?: string;
  readonly reservationId?: string;
  readonly requestId?: string;
  /** Whom the change was made for: the API caller, or the owner of the API hold it settled; none for the order flow. */
  readonly actor?: string;
  readonly at: Date;
}

/** What a write records in the movement it appends, beside the quantities. */
export interface MovementContext {
  readonly at: Date;
  readonly reason?: string;
  readonly reservationId?: string;
  /** The HTTP request id or the message id that caused the change, to follow it across logs. */
  readonly requestId?: string;
  /** Whom the change is made for (see StockMovement.actor). */
  readonly actor?: string;
}

/**
 * A movement as `reader` may see it: its reservation and request ids only
 * when it was made for the reader. Another caller's ids lead to its holds and
 * its requests, and the order flow's to orders (OWASP API1).
 */
export function movementSeenBy(movement: StockMovement, reader: string): StockMovement {
  if (movement.actor === reader) return movement;
  const { reservationId: _reservation, requestId: _request, ...rest } = movement;
  return rest;
}
