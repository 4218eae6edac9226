/** Why a product's stock or reserved quantity changed. */
export type MovementKind =
  | 'created'
  | 'updated'
  | 'adjusted'
  | 'reserved'
  | 'committed'
  | 'released'
  | 'expired'
  /** A transfer's units left its `from` location. */
  | 'transfer-sent'
  /** A transfer's units arrived at its `to` location. */
  | 'transfer-received'
  /** A cancelled transfer's units went back to its `from` location. */
  | 'transfer-cancelled'
  /** Stock that arrived was reserved for a hold that had backordered it. */
  | 'backorder-filled'
  /** An import set the location's on hand. */
  | 'imported'
  /** A shipment took committed units out of the location. */
  | 'shipped'
  /** An order's units came back (or, `missing`, were recorded as never coming back). */
  | 'returned'
  /** Units on hand moved between available, quality-control and damaged. */
  | 'state-changed';

/** Why a merchant adjusted stock or changed units' state (`correction` when not told). */
export type AdjustmentReasonCode =
  'received' | 'correction' | 'cycle-count' | 'damaged' | 'lost' | 'found' | 'returned' | 'other';

export const ADJUSTMENT_REASON_CODES: readonly AdjustmentReasonCode[] = [
  'received',
  'correction',
  'cycle-count',
  'damaged',
  'lost',
  'found',
  'returned',
  'other',
];

export const DEFAULT_REASON_CODE: AdjustmentReasonCode = 'correction';

/**
 * Why a movement was made, on every row of the ledger: an adjustment's or a state change's code as the merchant gave
 * it; for every other movement the code of its verb, which is its kind (`reserved`, `shipped`, `returned`, …).
 */
export type ReasonCode = AdjustmentReasonCode | Exclude<MovementKind, 'adjusted' | 'state-changed'>;

/** The code a movement of `kind` carries when its verb was told none. */
export function reasonCodeOf(kind: MovementKind, told?: ReasonCode): ReasonCode {
  if (told !== undefined) return told;
  return kind === 'adjusted' || kind === 'state-changed' ? DEFAULT_REASON_CODE : kind;
}

/**
 * Who a movement caused by an order's event (sales' messages) is made by: the service whose event it was. No API
 * caller is this one (OWASP API1): movementSeenBy never shows such a movement's ids.
 */
export const ORDER_FLOW_ACTOR = 'sales';

/**
 * One entry of a product's append-only stock ledger. For every product and
 * location, the sum of its quantityDelta is the location's onHand, and the
 * sum of each state's delta that state's quantity there (reserved,
 * committed, quality control, damaged); summed over locations, the product's
 * totals.
 */
export interface StockMovement {
  readonly id: number;
  readonly productId: number;
  /** Where the stock moved. */
  readonly locationId: number;
  /** The transfer the movement is a step of. */
  readonly transferId?: string;
  readonly kind: MovementKind;
  readonly quantityDelta: number;
  readonly reservedDelta: number;
  readonly committedDelta: number;
  readonly qualityControlDelta: number;
  readonly damagedDelta: number;
  /** The product's stock and reserved units right after it. */
  readonly quantityAfter: number;
  readonly reservedAfter: number;
  readonly reasonCode: ReasonCode;
  readonly reason?: string;
  readonly reservationId?: string;
  readonly requestId?: string;
  /**
   * Whom the change was made for: the API caller (its token's subject; `anonymous` when tokens are off), the owner of
   * the API hold it settled, or the service whose event caused it (ORDER_FLOW_ACTOR).
   */
  readonly actor: string;
  /** The trace of the request or message that caused it (OpenTelemetry), when tracing was on. */
  readonly traceId?: string;
  /**
   * Its place in the product's ledger: 1 for the product's first movement, then exactly 1 more for each one after,
   * counted under the product's lock, so a reader of the product's movements (a webhook receiver) sees any gap.
   */
  readonly sequence: number;
  readonly at: Date;
}

/**
 * A movement as the ProductStock aggregate decides it: everything of the
 * ledger's row but its id and what the use case adds (MovementContext). A
 * store writes it as it is, in the transaction that moves the stock.
 */
export interface Movement {
  readonly kind: MovementKind;
  readonly locationId: number;
  readonly transferId?: string;
  /** The hold it was made for, when not the change's own (a fill is made for the backordered hold it fills). */
  readonly reservationId?: string;
  readonly quantityDelta: number;
  readonly reservedDelta: number;
  readonly committedDelta: number;
  readonly qualityControlDelta: number;
  readonly damagedDelta: number;
  /** The product's totals right after it. */
  readonly quantityAfter: number;
  readonly reservedAfter: number;
  readonly reasonCode: ReasonCode;
  /** Its location's quantities right after it (what a stock.level.changed event tells). */
  readonly onHand: number;
  readonly reserved: number;
  readonly committed: number;
  readonly qualityControl: number;
  readonly damaged: number;
  readonly sequence: number;
}

/** What a write records in the movement it appends, beside the quantities. */
export interface MovementContext {
  readonly at: Date;
  readonly reason?: string;
  readonly reservationId?: string;
  /** The HTTP request id or the message id that caused the change, to follow it across logs. */
  readonly requestId?: string;
  /** Whom the change is made for (see StockMovement.actor). */
  readonly actor: string;
  /** The trace the change is made in; a store that is handed a trace provider fills it when absent. */
  readonly traceId?: string;
}

/**
 * A movement a write appended, as its store answers it to the use case: the movement's id and place in the
 * product's ledger, and the level at its location right after it (what a stock.level.changed event tells).
 */
export interface AppendedMovement {
  readonly id: number;
  readonly sequence: number;
  readonly kind: MovementKind;
  readonly locationId: number;
  /** The location's quantities right after this movement. */
  readonly onHand: number;
  readonly reserved: number;
  readonly committed: number;
  readonly qualityControl: number;
  readonly damaged: number;
  readonly at: Date;
}

/**
 * A movement as `reader` may see it: its reservation, request and trace ids only
 * when it was made for the reader. Another caller's ids lead to its holds and
 * its requests, and the order flow's to orders (OWASP API1).
 */
export function movementSeenBy(movement: StockMovement, reader: string): StockMovement {
  if (movement.actor === reader && movement.actor !== ORDER_FLOW_ACTOR) return movement;
  const { reservationId: _reservation, requestId: _request, traceId: _trace, ...rest } = movement;
  return rest;
}
