import { EntitySchema } from '@mikro-orm/core';
import { type Dialect, query, type Row, timeOf } from '@platform/persistence';
import {
  ANONYMOUS_CALLER,
  DEFAULT_REASON_CODE,
  type Movement,
  type MovementContext,
  type MovementKind,
  type ReasonCode,
  type StockMovement,
} from '@stock/domain';
import { identity, timeColumn as time } from './columns';

/**
 * The stock_movement table: the ledger, append-only. Its rows are written by
 * the repository that moves the stock (../stock/product-stock-statements.ts
 * and the product insert), in the same statement or transaction, exactly as
 * the ProductStock aggregate decided them.
 */

export interface StockMovementRow {
  id: number;
  productId: number;
  locationId: number;
  transferId: string | null;
  kind: string;
  quantityDelta: number;
  reservedDelta: number;
  committedDelta: number;
  qualityControlDelta: number;
  damagedDelta: number;
  quantityAfter: number;
  reservedAfter: number;
  /** Why (@stock/domain's ReasonCode); every write says it, the default only speaks for rows older than it. */
  reasonCode: string;
  reason: string | null;
  reservationId: string | null;
  requestId: string | null;
  /**
   * Whom the change was made for: the API caller, the owner of the API hold it settled, or the service whose event
   * caused it. Every write says it, and the named states' migration gave the older rows theirs; the column stays
   * nullable as it was made (SQLite would rebuild the ledger's table to say otherwise).
   */
  actor: string | null;
  /** The OpenTelemetry trace the change was made in. */
  traceId: string | null;
  /** Its place in the product's ledger: 1, 2, 3… per product. */
  sequence: number;
  at: Date | number;
}

export function stockMovementSchema(dialect: Dialect): EntitySchema<StockMovementRow> {
  const wide = dialect === 'postgresql' ? 'bigint' : 'integer';
  return new EntitySchema<StockMovementRow>({
    name: 'StockMovement',
    tableName: 'stock_movement',
    indexes: [{ name: 'stock_movement_product_id_id_index', properties: ['productId', 'id'] }],
    properties: {
      id: identity(dialect, 'bigint'),
      productId: { type: 'integer', fieldName: 'product_id' },
      locationId: { type: 'integer', fieldName: 'location_id', default: 1 },
      transferId: { type: 'string', length: 36, fieldName: 'transfer_id', nullable: true },
      kind: { type: 'string', length: 20 },
      quantityDelta: { type: wide, fieldName: 'quantity_delta' },
      reservedDelta: { type: wide, fieldName: 'reserved_delta' },
      // The rows from before the named states moved none of these.
      committedDelta: { type: wide, fieldName: 'committed_delta', defaultRaw: '0' },
      qualityControlDelta: { type: wide, fieldName: 'quality_control_delta', defaultRaw: '0' },
      damagedDelta: { type: wide, fieldName: 'damaged_delta', defaultRaw: '0' },
      quantityAfter: { type: 'integer', fieldName: 'quantity_after' },
      reservedAfter: { type: 'integer', fieldName: 'reserved_after' },
      reasonCode: { type: 'string', length: 20, fieldName: 'reason_code', default: DEFAULT_REASON_CODE },
      reason: { type: 'string', length: 200, nullable: true },
      reservationId: { type: 'string', length: 36, fieldName: 'reservation_id', nullable: true },
      requestId: { type: 'string', length: 128, fieldName: 'request_id', nullable: true },
      actor: { type: 'text', nullable: true },
      at: time(dialect, 'at'),
      sequence: { type: wide, defaultRaw: '0' },
      traceId: {
        ...(dialect === 'postgresql' ? { type: 'string', length: 32 } : { type: 'text' }),
        fieldName: 'trace_id',
        nullable: true,
      },
    },
  });
}

/** The columns a movement is written with, in the order the insert statements take them. */
const WRITTEN = [
  'product_id',
  'location_id',
  'transfer_id',
  'kind',
  'quantity_delta',
  'reserved_delta',
  'committed_delta',
  'quality_control_delta',
  'damaged_delta',
  'quantity_after',
  'reserved_after',
  'reason_code',
  'reason',
  'reservation_id',
  'request_id',
  'actor',
  'trace_id',
  'sequence',
  'at',
] as const;

/** What the insert statements take for one movement, column by column (WRITTEN). */
export type MovementValues = [
  productId: number,
  locationId: number,
  transferId: string | null,
  kind: string,
  quantityDelta: number,
  reservedDelta: number,
  committedDelta: number,
  qualityControlDelta: number,
  damagedDelta: number,
  quantityAfter: number,
  reservedAfter: number,
  reasonCode: ReasonCode,
  reason: string | null,
  reservationId: string | null,
  requestId: string | null,
  actor: string,
  traceId: string | null,
  sequence: number,
  at: Date,
];

/** A movement the aggregate decided, with the context its use case gives it, as the insert takes it. */
export function movementValues(
  productId: number,
  movement: Movement,
  context: MovementContext,
  traceId: string | undefined,
): MovementValues {
  return [
    productId,
    movement.locationId,
    movement.transferId ?? null,
    movement.kind,
    movement.quantityDelta,
    movement.reservedDelta,
    movement.committedDelta,
    movement.qualityControlDelta,
    movement.damagedDelta,
    movement.quantityAfter,
    movement.reservedAfter,
    movement.reasonCode,
    context.reason ?? null,
    movement.reservationId ?? context.reservationId ?? null,
    context.requestId ?? null,
    context.actor,
    traceId ?? null,
    movement.sequence,
    context.at,
  ];
}

export const MOVEMENT_COLUMNS = WRITTEN.map((column) => `"${column}"`).join(', ');

/** The types PostgreSQL's unnest takes each written column's array as. */
export const MOVEMENT_ARRAY_TYPES = [
  'integer',
  'integer',
  'text',
  'text',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'integer',
  'integer',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'bigint',
  'timestamptz',
] as const;

interface MovementDbRow extends Row {
  id: number;
  product_id: number;
  location_id: number;
  transfer_id: string | null;
  kind: string;
  quantity_delta: number;
  reserved_delta: number;
  committed_delta: number;
  quality_control_delta: number;
  damaged_delta: number;
  quantity_after: number;
  reserved_after: number;
  reason_code: string;
  reason: string | null;
  reservation_id: string | null;
  request_id: string | null;
  actor: string | null;
  trace_id: string | null;
  sequence: number;
  at: Date | number | string;
}

export const MOVEMENT_STATEMENTS = {
  /**
   * SQLite: one movement appended (SqlSession.insert answers its id; PostgreSQL appends them with the change, in one
   * statement).
   */
  append: query<MovementValues>(
    `insert into "stock_movement" (${MOVEMENT_COLUMNS}) values (${WRITTEN.map(() => '?').join(', ')})`,
  ),
  /** A product's movements in ledger order after a movement id: the index on (product_id, id) answers it. */
  list: query<[productId: number, after: number, limit: number], MovementDbRow>(
    `select "id", ${MOVEMENT_COLUMNS} from "stock_movement" where "product_id" = ? and "id" > ? order by "id" limit ?`,
  ),
  /** The same newest first, before a movement id: the same index, read backwards. */
  listNewestFirst: query<[productId: number, before: number, limit: number], MovementDbRow>(
    `select "id", ${MOVEMENT_COLUMNS} from "stock_movement" where "product_id" = ? and "id" < ? order by "id" desc limit ?`,
  ),
} as const;

export function toMovement(row: MovementDbRow): StockMovement {
  return {
    id: Number(row.id),
    productId: Number(row.product_id),
    locationId: Number(row.location_id),
    ...(row.transfer_id != null && { transferId: String(row.transfer_id) }),
    kind: row.kind as MovementKind,
    quantityDelta: Number(row.quantity_delta),
    reservedDelta: Number(row.reserved_delta),
    committedDelta: Number(row.committed_delta),
    qualityControlDelta: Number(row.quality_control_delta),
    damagedDelta: Number(row.damaged_delta),
    quantityAfter: Number(row.quantity_after),
    reservedAfter: Number(row.reserved_after),
    reasonCode: row.reason_code as ReasonCode,
    ...(row.reason != null && { reason: String(row.reason) }),
    ...(row.reservation_id != null && { reservationId: String(row.reservation_id) }),
    ...(row.request_id != null && { requestId: String(row.request_id) }),
    actor: row.actor ?? ANONYMOUS_CALLER,
    ...(row.trace_id != null && { traceId: String(row.trace_id) }),
    sequence: Number(row.sequence),
    at: timeOf(row.at),
  };
}
