import { EntitySchema, type Platform, Type } from '@mikro-orm/core';
import { type Dialect, idempotencyKeySchema, outboxMessageSchema } from '@platform/mikro-orm';
import { webhookSchemas, withWebhookFanOut } from '@platform/webhooks/mikro-orm';
import { Money } from '@stock/domain';
import { AVAILABLE, STOCK_STATE } from './product-expressions';

/** A product as a database row; the repository turns it into the domain's Product. */
export interface ProductRow {
  id: number;
  name: string;
  description: string;
  price: Money;
  quantityInStock: number;
  reservedQuantity: number;
  backorderLimit: number;
  backorderedQuantity: number;
  lowStockThreshold: number;
  lowStockAlert: boolean;
  sku: string | null;
  /**
   * What the latest write was (kind, location, transfer, reason, reservation, request, time), read by the ledger
   * trigger.
   */
  writeContext: string | null;
  /** The sequence of the product's latest movement: the ledger's triggers move it with every movement. */
  movementSequence: number;
  version: number;
}

/** One movement of the stock ledger (see the migration that creates it). */
export interface StockMovementRow {
  id: number;
  productId: number;
  locationId: number;
  transferId: string | null;
  kind: string;
  quantityDelta: number;
  reservedDelta: number;
  quantityAfter: number;
  reservedAfter: number;
  reason: string | null;
  reservationId: string | null;
  requestId: string | null;
  /**
   * Whom the change was made for (the API caller, or the owner of the API hold it settled); null for the order flow.
   */
  actor: string | null;
  /** The OpenTelemetry trace the change was made in. */
  traceId: string | null;
  /** Its place in the product's ledger: 1, 2, 3… per product. */
  sequence: number;
  at: Date | number;
}

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

/** PostgreSQL keeps money as numeric(15,2), exchanged as text so no double is ever involved. */
export class NumericMoneyType extends Type<Money, string> {
  override convertToDatabaseValue(value: Money): string {
    return value.toString();
  }
  override convertToJSValue(value: string): Money {
    return Money.fromDecimalString(value);
  }
  override compareAsType(): string {
    return 'string';
  }
  override getColumnType(): string {
    return 'numeric(15,2)';
  }
}

/** SQLite has no exact decimal type, and REAL would round: money is integer cents there. */
export class CentsMoneyType extends Type<Money, number> {
  override convertToDatabaseValue(value: Money): number {
    return value.cents;
  }
  override convertToJSValue(value: number): Money {
    return Money.fromCents(Number(value));
  }
  override compareAsType(): string {
    return 'number';
  }
  override getColumnType(_prop: unknown, platform: Platform): string {
    return platform.getIntegerTypeDeclarationSQL({});
  }
}

/** Where and how each dialect keeps a price. */
export const MONEY_COLUMN: Readonly<
  Record<Dialect, { readonly name: string; readonly type: Type<Money, string | number> }>
> = {
  postgresql: { name: 'price', type: new NumericMoneyType() },
  sqlite: { name: 'price_cents', type: new CentsMoneyType() },
};

/** The product's stock settings and backorders are never negative (the same checks on both databases). */
const SETTING_CHECKS = [
  { name: 'product_backorder_limit_check', expression: '"backorder_limit" >= 0' },
  { name: 'product_backordered_quantity_check', expression: '"backordered_quantity" >= 0' },
  { name: 'product_low_stock_threshold_check', expression: '"low_stock_threshold" >= 0' },
];

/**
 * The catalogue's indexes (migration 20261125-catalogue-search creates them): SKUs unique ignoring case, one btree
 * per sort with the id as tie-breaker (descending sorts keep the id ascending), the stock state with the id, and on
 * PostgreSQL pg_trgm's GIN index on each text column (SQLite's is the FTS5 table "product_search", which the mapping
 * does not know). Expression indexes: MikroORM compares them by name only. The expressions are the queries', word for
 * word, as a planner needs.
 */
function catalogueIndexes(dialect: Dialect): { name: string; expression: string }[] {
  const price = MONEY_COLUMN[dialect].name;
  const index = (name: string, columns: string, using = '') => ({
    name,
    expression: `create index "${name}" on "product"${using} (${columns})`,
  });
  return [
    index('product_name_id_index', '"name", "id"'),
    index('product_name_desc_id_index', '"name" desc, "id"'),
    index('product_price_id_index', `"${price}", "id"`),
    index('product_price_desc_id_index', `"${price}" desc, "id"`),
    index('product_available_id_index', `${AVAILABLE}, "id"`),
    index('product_available_desc_id_index', `${AVAILABLE} desc, "id"`),
    index('product_stock_state_id_index', `${STOCK_STATE}, "id"`),
    ...(dialect === 'postgresql'
      ? [
          index('product_name_trgm_index', '"name" gin_trgm_ops', ' using gin'),
          index('product_description_trgm_index', '"description" gin_trgm_ops', ' using gin'),
          index('product_sku_trgm_index', '"sku" gin_trgm_ops', ' using gin'),
        ]
      : []),
  ];
}

/**
 * The product table's mapping, built per dialect (each keeps money in its own
 * exact column): no decorators on domain classes. The migrations create the
 * table; the schema-drift test holds the two together.
 */
export function productSchema(dialect: Dialect): EntitySchema<ProductRow> {
  const price = MONEY_COLUMN[dialect].name;
  return new EntitySchema<ProductRow>({
    name: 'Product',
    tableName: 'product',
    uniques: [
      {
        name: 'product_sku_unique',
        expression: 'create unique index "product_sku_unique" on "product" (lower("sku"))',
      },
    ],
    indexes: catalogueIndexes(dialect),
    // The migrations' check constraints, which MikroORM 7 reads back on both databases (on SQLite named after their
    // column).
    checks:
      dialect === 'postgresql'
        ? [
            { name: 'product_price_check', expression: `"${price}" >= 0` },
            { name: 'product_quantity_in_stock_check', expression: '"quantity_in_stock" >= 0' },
            {
              name: 'product_reserved_quantity_check',
              expression: '"reserved_quantity" >= 0 and "reserved_quantity" <= "quantity_in_stock"',
            },
            ...SETTING_CHECKS,
          ]
        : [
            { name: 'product_name_check', expression: 'length("name") <= 200' },
            { name: 'product_description_check', expression: 'length("description") <= 2000' },
            { name: 'product_price_cents_check', expression: '"price_cents" >= 0' },
            { name: 'product_quantity_in_stock_check', expression: '"quantity_in_stock" between 0 and 2147483647' },
            ...SETTING_CHECKS,
          ],
    properties: {
      // PostgreSQL: an identity column, as the first migration made it. SQLite: AUTOINCREMENT, so ids are never
      // reused; its catalog calls an INTEGER PRIMARY KEY without NOT NULL nullable, though a NULL there becomes the
      // next id.
      id: {
        type: 'integer',
        primary: true,
        autoincrement: true,
        ...(dialect === 'postgresql' ? { generated: 'by default as identity' } : { nullable: true }),
      },
      name: { type: 'string', length: 200 },
      description: { type: 'string', length: 2000, default: '' },
      price: { type: MONEY_COLUMN[dialect].type, fieldName: MONEY_COLUMN[dialect].name },
      quantityInStock: { type: 'integer', fieldName: 'quantity_in_stock', default: 0 },
      reservedQuantity: { type: 'integer', fieldName: 'reserved_quantity', default: 0 },
      backorderLimit: { type: 'integer', fieldName: 'backorder_limit', default: 0 },
      backorderedQuantity: { type: 'integer', fieldName: 'backordered_quantity', default: 0 },
      lowStockThreshold: { type: 'integer', fieldName: 'low_stock_threshold', default: 0 },
      lowStockAlert: { type: 'boolean', fieldName: 'low_stock_alert', default: false },
      sku: { type: 'string', length: 64, nullable: true },
      writeContext: { type: dialect === 'postgresql' ? 'json' : 'text', fieldName: 'write_context', nullable: true },
      movementSequence: {
        type: dialect === 'postgresql' ? 'bigint' : 'integer',
        fieldName: 'movement_sequence',
        defaultRaw: '0',
      },
      // Every write moves it on: the product's ETag, and the guard of conditional writes.
      version: { type: 'integer', version: true, default: 1 },
    },
  });
}

/** Times: timestamptz on PostgreSQL, epoch milliseconds on SQLite (which has no time type). */
function time(dialect: Dialect, fieldName: string): { type: string; columnType?: string; fieldName: string } {
  return dialect === 'postgresql'
    ? { type: 'datetime', columnType: 'timestamptz', fieldName }
    : { type: 'integer', fieldName };
}

export function stockMovementSchema(dialect: Dialect): EntitySchema<StockMovementRow> {
  const wide = dialect === 'postgresql' ? 'bigint' : 'integer';
  return new EntitySchema<StockMovementRow>({
    name: 'StockMovement',
    tableName: 'stock_movement',
    indexes: [{ name: 'stock_movement_product_id_id_index', properties: ['productId', 'id'] }],
    properties: {
      id: {
        type: wide,
        primary: true,
        autoincrement: true,
        ...(dialect === 'postgresql' ? { generated: 'by default as identity' } : { nullable: true }),
      },
      productId: { type: 'integer', fieldName: 'product_id' },
      locationId: { type: 'integer', fieldName: 'location_id', default: 1 },
      transferId: { type: 'string', length: 36, fieldName: 'transfer_id', nullable: true },
      kind: { type: 'string', length: 20 },
      quantityDelta: { type: wide, fieldName: 'quantity_delta' },
      reservedDelta: { type: wide, fieldName: 'reserved_delta' },
      quantityAfter: { type: 'integer', fieldName: 'quantity_after' },
      reservedAfter: { type: 'integer', fieldName: 'reserved_after' },
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

export interface LocationRow {
  id: number;
  code: string;
  name: string;
  priority: number;
}

export function locationSchema(dialect: Dialect): EntitySchema<LocationRow> {
  return new EntitySchema<LocationRow>({
    name: 'Location',
    tableName: 'location',
    uniques: [{ name: 'location_code_unique', properties: ['code'] }],
    checks:
      dialect === 'postgresql'
        ? []
        : [
            { name: 'location_code_check', expression: 'length("code") <= 50' },
            { name: 'location_name_check', expression: 'length("name") <= 200' },
          ],
    properties: {
      id: {
        type: 'integer',
        primary: true,
        autoincrement: true,
        ...(dialect === 'postgresql' ? { generated: 'by default as identity' } : { nullable: true }),
      },
      code: { type: 'string', length: 50 },
      name: { type: 'string', length: 200 },
      priority: { type: 'integer', default: 0 },
    },
  });
}

/** A product's stock at one location; the product's quantities are the sums over its levels. */
export interface StockLevelRow {
  product: ProductRow;
  location: LocationRow;
  onHand: number;
  reserved: number;
  incoming: number;
}

export function stockLevelSchema(
  product: EntitySchema<ProductRow>,
  location: EntitySchema<LocationRow>,
): EntitySchema<StockLevelRow> {
  return new EntitySchema<StockLevelRow>({
    name: 'StockLevel',
    tableName: 'stock_level',
    indexes: [{ name: 'stock_level_location_id_index', properties: ['location'] }],
    checks: [
      { name: 'stock_level_reserved_check', expression: '"reserved" >= 0 and "reserved" <= "on_hand"' },
      { name: 'stock_level_incoming_check', expression: '"incoming" >= 0' },
    ],
    properties: {
      // A product's levels go with it (the primary key, which starts with it, is its index); a location with levels
      // stays (the repository removes its empty ones first).
      product: {
        kind: 'm:1',
        entity: () => product,
        primary: true,
        fieldName: 'product_id',
        deleteRule: 'cascade',
        index: false,
      },
      location: {
        kind: 'm:1',
        entity: () => location,
        primary: true,
        fieldName: 'location_id',
        deleteRule: 'restrict',
      },
      onHand: { type: 'integer', fieldName: 'on_hand', default: 0 },
      reserved: { type: 'integer', default: 0 },
      incoming: { type: 'integer', default: 0 },
    },
  });
}

export interface StockTransferRow {
  id: string;
  productId: number;
  fromLocationId: number;
  toLocationId: number;
  quantity: number;
  reference: string;
  status: string;
  createdAt: Date | number;
  updatedAt: Date | number;
}

/** Transfers keep their products' and locations' ids without foreign keys: a transfer outlives both, as history. */
export function stockTransferSchema(dialect: Dialect): EntitySchema<StockTransferRow> {
  return new EntitySchema<StockTransferRow>({
    name: 'StockTransfer',
    tableName: 'stock_transfer',
    uniques: [{ name: 'stock_transfer_reference_unique', properties: ['reference'] }],
    checks: [{ name: 'stock_transfer_quantity_check', expression: '"quantity" > 0' }],
    properties: {
      id: { type: 'string', length: 36, primary: true },
      productId: { type: 'integer', fieldName: 'product_id' },
      fromLocationId: { type: 'integer', fieldName: 'from_location_id' },
      toLocationId: { type: 'integer', fieldName: 'to_location_id' },
      quantity: { type: 'integer' },
      reference: { type: 'string', length: 200 },
      status: { enum: true, items: ['in-transit', 'received', 'cancelled'], type: 'text' },
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
    },
  });
}

/** Every table the stock migrations create. */
export function stockEntities(dialect: Dialect): EntitySchema[] {
  const [product, location, reservation] = [
    productSchema(dialect),
    locationSchema(dialect),
    reservationSchema(dialect),
  ];
  return [
    product,
    location,
    stockLevelSchema(product, location),
    stockMovementSchema(dialect),
    stockTransferSchema(dialect),
    reservation,
    reservationAllocationSchema(reservation),
    reservationBackorderSchema(dialect, reservation),
    idempotencyKeySchema(dialect),
    // The outbox carries the webhook fan-out's mark, and the webhook tables sit beside it (@platform/webhooks).
    withWebhookFanOut(outboxMessageSchema(dialect), dialect),
    ...webhookSchemas(dialect),
  ] as EntitySchema[];
}
