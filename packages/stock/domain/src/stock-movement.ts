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
  readonly at: Date;
}

/** What a write records in the movement it appends, beside the quantities. */
export interface MovementContext {
  readonly at: Date;
  readonly reason?: string;
  readonly reservationId?: string;
  /** The HTTP request id or the message id that caused the change, to follow it across logs. */
  readonly requestId?: string;
}
