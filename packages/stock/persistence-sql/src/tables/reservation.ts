import { EntitySchema } from '@mikro-orm/core';
import type { Dialect } from '@platform/persistence';
import { timeColumn as time } from './columns';

/**
 * The reservation tables: a hold (reservation), where each of its lines' units
 * are (reservation_allocation), and what each line still waits for
 * (reservation_backorder).
 */

export interface ReservationRow {
  id: string;
  reference: string;
  /** 'api' or 'order': whether changes to it are published as events. */
  origin: string;
  /** The caller that made an API hold; null for an order's. */
  owner: string | null;
  status: string;
  /** JSON: [{ productId, quantity }], one per product in id order. */
  lines: string;
  expiresAt: Date | number;
  createdAt: Date | number;
  updatedAt: Date | number;
}

/**
 * A reference is unique among one owner's API holds, and among the orders' holds: two partial unique indexes, as the
 * migrations make them.
 */
const RESERVATION_REFERENCE_INDEXES = {
  order: `create unique index "reservation_order_reference_unique" on "reservation" ("reference") where "origin" = 'order'`,
  api: `create unique index "reservation_owner_reference_unique" on "reservation" ("owner", "reference") where "origin" = 'api'`,
} as const;

export function reservationSchema(dialect: Dialect): EntitySchema<ReservationRow> {
  return new EntitySchema<ReservationRow>({
    name: 'Reservation',
    tableName: 'reservation',
    // Partial indexes: MikroORM compares them by name only.
    uniques: [
      { name: 'reservation_order_reference_unique', expression: RESERVATION_REFERENCE_INDEXES.order },
      { name: 'reservation_owner_reference_unique', expression: RESERVATION_REFERENCE_INDEXES.api },
    ],
    indexes: [{ name: 'reservation_status_expires_at_index', properties: ['status', 'expiresAt'] }],
    // As for product: SQLite's checks live in the migration only (and SQLite has none for the owner, see there).
    checks:
      dialect === 'postgresql'
        ? [{ name: 'reservation_owner_check', expression: `("owner" is null) = ("origin" = 'order')` }]
        : [],
    properties: {
      id: { type: 'string', length: 36, primary: true },
      reference: { type: 'string', length: 200 },
      origin: { enum: true, items: ['api', 'order'], type: 'text', default: 'api' },
      owner: { type: 'text', nullable: true },
      // MikroORM reads the check back as this enum, on both databases (PostgreSQL rewrites an IN list, so a
      // hand-written check never compares equal).
      status: { enum: true, items: ['held', 'committed', 'released', 'expired', 'rejected'], type: 'text' },
      lines: { type: 'text' },
      expiresAt: time(dialect, 'expires_at'),
      createdAt: time(dialect, 'created_at'),
      updatedAt: time(dialect, 'updated_at'),
    },
  });
}

/** Units a reservation's line holds at one location. */
export interface ReservationAllocationRow {
  reservation: ReservationRow;
  productId: number;
  locationId: number;
  quantity: number;
}

/**
 * The reservation a line's row belongs to (allocations, backorders): the first column of its primary key, whose index
 * it therefore needs no other of, and gone with its reservation.
 */
function lineOf(reservation: EntitySchema<ReservationRow>) {
  return {
    kind: 'm:1',
    entity: () => reservation,
    primary: true,
    fieldName: 'reservation_id',
    deleteRule: 'cascade',
    index: false,
  } as const;
}

export function reservationAllocationSchema(
  reservation: EntitySchema<ReservationRow>,
): EntitySchema<ReservationAllocationRow> {
  return new EntitySchema<ReservationAllocationRow>({
    name: 'ReservationAllocation',
    tableName: 'reservation_allocation',
    checks: [{ name: 'reservation_allocation_quantity_check', expression: '"quantity" > 0' }],
    properties: {
      reservation: lineOf(reservation),
      productId: { type: 'integer', primary: true, fieldName: 'product_id' },
      locationId: { type: 'integer', primary: true, fieldName: 'location_id' },
      quantity: { type: 'integer' },
    },
  });
}

/** Units a reservation's line still waits for; `seq` orders a product's backorders, oldest first. */
export interface ReservationBackorderRow {
  reservation: ReservationRow;
  productId: number;
  quantity: number;
  seq: number;
  locationId: number | null;
}

export function reservationBackorderSchema(
  dialect: Dialect,
  reservation: EntitySchema<ReservationRow>,
): EntitySchema<ReservationBackorderRow> {
  return new EntitySchema<ReservationBackorderRow>({
    name: 'ReservationBackorder',
    tableName: 'reservation_backorder',
    indexes: [{ name: 'reservation_backorder_product_id_seq_index', properties: ['productId', 'seq'] }],
    checks: [{ name: 'reservation_backorder_quantity_check', expression: '"quantity" >= 0' }],
    properties: {
      reservation: lineOf(reservation),
      productId: { type: 'integer', primary: true, fieldName: 'product_id' },
      quantity: { type: 'integer' },
      seq: { type: dialect === 'postgresql' ? 'bigint' : 'integer' },
      // The location its line named: only stock there fills it (none: any location's may).
      locationId: { type: 'integer', fieldName: 'location_id', nullable: true },
    },
  });
}
