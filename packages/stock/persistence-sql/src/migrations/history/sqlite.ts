import { Migration } from '@mikro-orm/migrations';
import { outboxMigrations } from '@platform/persistence';
import {
  outboxWebhookFanOutMigration,
  webhookTablesMigration,
  webhookTraceContextMigration,
} from '../../webhooks/index';

export class CreateProductTable extends Migration {
  override async up(): Promise<void> {
    // AUTOINCREMENT: an id is never handed out twice, even after its product is deleted.
    this.addSql(`create table "product" (
      "id" integer primary key autoincrement,
      "name" text not null check (length("name") <= 200),
      "description" text not null default '' check (length("description") <= 2000),
      "price_cents" integer not null check ("price_cents" >= 0),
      "quantity_in_stock" integer not null default 0 check ("quantity_in_stock" between 0 and 2147483647)
    )`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table "product"');
  }
}

export class AddVersionAndIdempotencyKeys extends Migration {
  override async up(): Promise<void> {
    // Every write moves a product to its next version: its ETag, and the guard of conditional writes.
    this.addSql('alter table "product" add column "version" integer not null default 1');
    // Recorded responses of requests that carried an Idempotency-Key, kept until "expires_at" (epoch ms).
    this.addSql(`create table "idempotency_key" (
      "scope" text not null,
      "key" text not null,
      "fingerprint" text not null,
      "status" integer null,
      "headers" text null,
      "body" text null,
      "expires_at" integer not null,
      primary key ("scope", "key")
    )`);
    this.addSql('create index "idempotency_key_expires_at_index" on "idempotency_key" ("expires_at")');
  }

  override async down(): Promise<void> {
    this.addSql('drop table "idempotency_key"');
    this.addSql('alter table "product" drop column "version"');
  }
}

/** As on PostgreSQL: recorded responses become the serialised products they carried (see postgresql.ts). */
export class GenericIdempotencyRecords extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "idempotency_key" add column "result" text null');
    this.addSql(`update "idempotency_key" set
      "scope" = case "scope" when 'POST /api/products' then 'create-product' when 'POST /api/products/{id}/stock-adjustments' then 'adjust-stock' else "scope" end,
      "result" = json_object(
        'id', json_extract("body", '$.id'),
        'name', json_extract("body", '$.name'),
        'description', json_extract("body", '$.description'),
        'priceCents', cast(round(json_extract("body", '$.price') * 100) as integer),
        'quantityInStock', json_extract("body", '$.quantityInStock'),
        'version', cast(trim(json_extract("headers", '$.ETag'), '"') as integer))
      where "body" is not null`);
    this.addSql('delete from "idempotency_key" where "result" is null');
    this.addSql('alter table "idempotency_key" drop column "status"');
    this.addSql('alter table "idempotency_key" drop column "headers"');
    this.addSql('alter table "idempotency_key" drop column "body"');
  }

  override async down(): Promise<void> {
    this.addSql('delete from "idempotency_key"');
    this.addSql('alter table "idempotency_key" drop column "result"');
    this.addSql('alter table "idempotency_key" add column "status" integer null');
    this.addSql('alter table "idempotency_key" add column "headers" text null');
    this.addSql('alter table "idempotency_key" add column "body" text null');
  }
}

/**
 * Reservations and the stock ledger, as on PostgreSQL (see postgresql.ts): the
 * movement is appended by triggers that see the row's old and new quantities,
 * fed by "write_context" (JSON text). SQLite checks the held quantity against
 * the stock in the statements that change it; a CHECK across columns cannot be
 * added to an existing table without rebuilding it.
 */
export class ReservationsAndStockLedger extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "product" add column "reserved_quantity" integer not null default 0');
    this.addSql('alter table "product" add column "write_context" text null');
    this.addSql(`create table "stock_movement" (
      "id" integer primary key autoincrement,
      "product_id" integer not null,
      "kind" text not null,
      "quantity_delta" integer not null,
      "reserved_delta" integer not null,
      "quantity_after" integer not null,
      "reserved_after" integer not null,
      "reason" text null,
      "reservation_id" text null,
      "request_id" text null,
      "at" integer not null
    )`);
    this.addSql('create index "stock_movement_product_id_id_index" on "stock_movement" ("product_id", "id")');
    this
      .addSql(`insert into "stock_movement" ("product_id", "kind", "quantity_delta", "reserved_delta", "quantity_after", "reserved_after", "reason", "at")
      select "id", 'created', "quantity_in_stock", 0, "quantity_in_stock", 0, 'opening balance', cast(unixepoch('subsec') * 1000 as integer) from "product" order by "id"`);
    const movement = (
      kind: string,
      from: { quantity: string; reserved: string },
    ) => `insert into "stock_movement" ("product_id", "kind", "quantity_delta", "reserved_delta", "quantity_after", "reserved_after", "reason", "reservation_id", "request_id", "at")
        values (new."id", coalesce(json_extract(new."write_context", '$.kind'), '${kind}'),
          new."quantity_in_stock" - ${from.quantity}, new."reserved_quantity" - ${from.reserved}, new."quantity_in_stock", new."reserved_quantity",
          json_extract(new."write_context", '$.reason'), json_extract(new."write_context", '$.reservationId'), json_extract(new."write_context", '$.requestId'),
          coalesce(json_extract(new."write_context", '$.atMs'), cast(unixepoch('subsec') * 1000 as integer)))`;
    this.addSql(`create trigger "product_stock_movement_on_insert" after insert on "product" begin
      ${movement('created', { quantity: '0', reserved: '0' })};
    end`);
    this
      .addSql(`create trigger "product_stock_movement_on_update" after update of "quantity_in_stock", "reserved_quantity" on "product"
      when new."quantity_in_stock" <> old."quantity_in_stock" or new."reserved_quantity" <> old."reserved_quantity" begin
      ${movement('updated', { quantity: 'old."quantity_in_stock"', reserved: 'old."reserved_quantity"' })};
    end`);
    this.addSql(`create table "reservation" (
      "id" text not null primary key,
      "reference" text not null,
      "status" text not null check ("status" in ('held', 'committed', 'released', 'expired', 'rejected')),
      "lines" text not null,
      "expires_at" integer not null,
      "created_at" integer not null,
      "updated_at" integer not null
    )`);
    this.addSql('create unique index "reservation_reference_unique" on "reservation" ("reference")');
    this.addSql('create index "reservation_status_expires_at_index" on "reservation" ("status", "expires_at")');
  }

  override async down(): Promise<void> {
    this.addSql('drop table "reservation"');
    this.addSql('drop trigger "product_stock_movement_on_update"');
    this.addSql('drop trigger "product_stock_movement_on_insert"');
    this.addSql('drop table "stock_movement"');
    this.addSql('alter table "product" drop column "write_context"');
    this.addSql('alter table "product" drop column "reserved_quantity"');
  }
}

/** Reservations say who asked for them: changes to an order's reservation are published as events. */
export class ReservationOrigin extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "reservation" add column "origin" text not null default 'api' check ("origin" in ('api', 'order'))`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('alter table "reservation" drop column "origin"');
  }
}

/**
 * As on PostgreSQL (see postgresql.ts): holds belong to whoever made them,
 * references are unique per owner and among orders, and holds made before go
 * to the anonymous caller. SQLite cannot add the check that an API hold has an
 * owner and an order's none to an existing table without rebuilding it; the
 * repository always writes both together.
 */
export class ReservationOwner extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "reservation" add column "owner" text null');
    this.addSql(`update "reservation" set "owner" = 'anonymous' where "origin" = 'api'`);
    this.addSql('drop index "reservation_reference_unique"');
    this.addSql(
      `create unique index "reservation_order_reference_unique" on "reservation" ("reference") where "origin" = 'order'`,
    );
    this.addSql(
      `create unique index "reservation_owner_reference_unique" on "reservation" ("owner", "reference") where "origin" = 'api'`,
    );
  }

  /** Refused (by the unique index) while two owners' holds, or a hold and an order, share a reference. */
  override async down(): Promise<void> {
    this.addSql('drop index "reservation_owner_reference_unique"');
    this.addSql('drop index "reservation_order_reference_unique"');
    this.addSql('create unique index "reservation_reference_unique" on "reservation" ("reference")');
    this.addSql('alter table "reservation" drop column "owner"');
  }
}

/**
 * The ledger triggers (SQLite has no create or replace for triggers): with or
 * without the movement's actor, and with or without its location and transfer.
 */
function ledgerTriggers(withActor: boolean, withLocation = false, withSequence = false): string[] {
  const extra = (column: string, path: string) => ({
    column: `, "${column}"`,
    value: `, json_extract(new."write_context", '$.${path}')`,
  });
  const parts = [
    ...(withActor ? [extra('actor', 'actor')] : []),
    ...(withLocation
      ? [
          {
            column: ', "location_id"',
            value: `, coalesce(json_extract(new."write_context", '$.locationId'), 1)`,
          },
          extra('transfer_id', 'transferId'),
        ]
      : []),
    ...(withSequence
      ? [
          extra('trace_id', 'traceId'),
          { column: ', "sequence"', value: `, (select "movement_sequence" from "product" where "id" = new."id")` },
        ]
      : []),
  ];
  // The product's counter moves first, in the trigger's own statement: its column is not one the triggers watch.
  const count = withSequence
    ? `update "product" set "movement_sequence" = "movement_sequence" + 1 where "id" = new."id";
      `
    : '';
  const columns = parts.map((part) => part.column).join('');
  const values = parts.map((part) => part.value).join('');
  const movement = (
    kind: string,
    from: { quantity: string; reserved: string },
  ) => `insert into "stock_movement" ("product_id", "kind", "quantity_delta", "reserved_delta", "quantity_after", "reserved_after", "reason", "reservation_id", "request_id"${columns}, "at")
        values (new."id", coalesce(json_extract(new."write_context", '$.kind'), '${kind}'),
          new."quantity_in_stock" - ${from.quantity}, new."reserved_quantity" - ${from.reserved}, new."quantity_in_stock", new."reserved_quantity",
          json_extract(new."write_context", '$.reason'), json_extract(new."write_context", '$.reservationId'), json_extract(new."write_context", '$.requestId')${values},
          coalesce(json_extract(new."write_context", '$.atMs'), cast(unixepoch('subsec') * 1000 as integer)))`;
  return [
    'drop trigger "product_stock_movement_on_insert"',
    'drop trigger "product_stock_movement_on_update"',
    `create trigger "product_stock_movement_on_insert" after insert on "product" begin
      ${count}${movement('created', { quantity: '0', reserved: '0' })};
    end`,
    `create trigger "product_stock_movement_on_update" after update of "quantity_in_stock", "reserved_quantity" on "product"
      when new."quantity_in_stock" <> old."quantity_in_stock" or new."reserved_quantity" <> old."reserved_quantity" begin
      ${count}${movement('updated', { quantity: 'old."quantity_in_stock"', reserved: 'old."reserved_quantity"' })};
    end`,
  ];
}

/**
 * As on PostgreSQL (see postgresql.ts): each movement says whom it was made for, written by the triggers in the same
 * statement.
 */
export class StockMovementActor extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "stock_movement" add column "actor" text null');
    for (const sql of ledgerTriggers(true)) this.addSql(sql);
  }

  override async down(): Promise<void> {
    for (const sql of ledgerTriggers(false)) this.addSql(sql);
    this.addSql('alter table "stock_movement" drop column "actor"');
  }
}

/**
 * Stock by location, as on PostgreSQL (see postgresql.ts): the default
 * location, every product's stock and holds as its level there, the product's
 * backorder and low-stock columns, each movement's location and transfer (the
 * triggers read them from "write_context"), transfers, and reservations'
 * allocations and backorders, the lines of those that held becoming
 * allocations at the default location. Nothing here changes a constraint of an
 * existing table, so no table is rebuilt.
 */
export class StockByLocation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "location" (
      "id" integer primary key autoincrement,
      "code" text not null check (length("code") <= 50),
      "name" text not null check (length("name") <= 200),
      "priority" integer not null default 0
    )`);
    this.addSql('create unique index "location_code_unique" on "location" ("code")');
    this.addSql(`insert into "location" ("id", "code", "name", "priority") values (1, 'default', 'Default', 0)`);
    // Checks and references on their columns, and the key after ", constraint" on the last line: the way MikroORM
    // reads a SQLite table back, so the schema-drift test compares like with like.
    this.addSql(`create table "stock_level" (
      "product_id" integer not null references "product" ("id") on update cascade on delete cascade,
      "location_id" integer not null references "location" ("id") on update cascade on delete restrict,
      "on_hand" integer not null default 0,
      "reserved" integer not null default 0 check ("reserved" >= 0 and "reserved" <= "on_hand"),
      "incoming" integer not null default 0 check ("incoming" >= 0), constraint "stock_level_pk" primary key ("product_id", "location_id")
    )`);
    this.addSql('create index "stock_level_location_id_index" on "stock_level" ("location_id")');
    this.addSql(`insert into "stock_level" ("product_id", "location_id", "on_hand", "reserved", "incoming")
      select "id", 1, "quantity_in_stock", "reserved_quantity", 0 from "product"`);
    this.addSql(
      'alter table "product" add column "backorder_limit" integer not null default 0 check ("backorder_limit" >= 0)',
    );
    this.addSql(
      'alter table "product" add column "backordered_quantity" integer not null default 0 check ("backordered_quantity" >= 0)',
    );
    this.addSql(
      'alter table "product" add column "low_stock_threshold" integer not null default 0 check ("low_stock_threshold" >= 0)',
    );
    this.addSql('alter table "product" add column "low_stock_alert" integer not null default false');
    this.addSql('alter table "stock_movement" add column "location_id" integer not null default 1');
    this.addSql('alter table "stock_movement" add column "transfer_id" text null');
    for (const sql of ledgerTriggers(true, true)) this.addSql(sql);
    this.addSql(`create table "stock_transfer" (
      "id" text not null primary key,
      "product_id" integer not null,
      "from_location_id" integer not null,
      "to_location_id" integer not null,
      "quantity" integer not null check ("quantity" > 0),
      "reference" text not null,
      "status" text not null check ("status" in ('in-transit', 'received', 'cancelled')),
      "created_at" integer not null,
      "updated_at" integer not null
    )`);
    this.addSql('create unique index "stock_transfer_reference_unique" on "stock_transfer" ("reference")');
    this.addSql(`create table "reservation_allocation" (
      "reservation_id" text not null references "reservation" ("id") on delete cascade,
      "product_id" integer not null,
      "location_id" integer not null,
      "quantity" integer not null check ("quantity" > 0), constraint "reservation_allocation_pk" primary key ("reservation_id", "product_id", "location_id")
    )`);
    this.addSql(`create table "reservation_backorder" (
      "reservation_id" text not null references "reservation" ("id") on delete cascade,
      "product_id" integer not null,
      "quantity" integer not null check ("quantity" >= 0),
      "seq" integer not null, constraint "reservation_backorder_pk" primary key ("reservation_id", "product_id")
    )`);
    this.addSql(
      'create index "reservation_backorder_product_id_seq_index" on "reservation_backorder" ("product_id", "seq")',
    );
    this.addSql(`insert into "reservation_allocation" ("reservation_id", "product_id", "location_id", "quantity")
      select "reservation"."id", json_extract("line"."value", '$.productId'), 1, json_extract("line"."value", '$.quantity')
      from "reservation", json_each("reservation"."lines") as "line"
      where "reservation"."status" <> 'rejected' and json_extract("line"."value", '$.quantity') > 0`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table "reservation_backorder"');
    this.addSql('drop table "reservation_allocation"');
    this.addSql('drop table "stock_transfer"');
    for (const sql of ledgerTriggers(true)) this.addSql(sql);
    this.addSql('alter table "stock_movement" drop column "transfer_id"');
    this.addSql('alter table "stock_movement" drop column "location_id"');
    for (const column of ['low_stock_alert', 'low_stock_threshold', 'backordered_quantity', 'backorder_limit'])
      this.addSql(`alter table "product" drop column "${column}"`);
    this.addSql('drop table "stock_level"');
    this.addSql('drop table "location"');
  }
}

const AVAILABLE = '("quantity_in_stock" - "reserved_quantity" - "backordered_quantity")';
const STOCK_STATE = `(case when ${AVAILABLE} <= 0 then 'out' when ${AVAILABLE} < "low_stock_threshold" then 'low' else 'in' end)`;

const SEARCH_INDEXES = [
  ['product_name_id_index', '"name", "id"'],
  ['product_name_desc_id_index', '"name" desc, "id"'],
  ['product_price_id_index', '"price_cents", "id"'],
  ['product_price_desc_id_index', '"price_cents" desc, "id"'],
  ['product_available_id_index', `${AVAILABLE}, "id"`],
  ['product_available_desc_id_index', `${AVAILABLE} desc, "id"`],
  ['product_stock_state_id_index', `${STOCK_STATE}, "id"`],
] as const;

/** The FTS5 row of a product: its rowid is the product's id (an external-content table reads the rest from product). */
const searchRow = (of: 'new' | 'old') => `${of}."id", ${of}."name", ${of}."description", ${of}."sku"`;

/**
 * The catalogue: an optional SKU, unique ignoring case, and an index for every search (docs/performance.md): an FTS5
 * table with the trigram tokenizer over name, description and SKU (a quoted phrase matches anywhere in a column,
 * ignoring case), kept in step by triggers; a btree per sort with the id as tie-breaker (a descending sort keeps the
 * id ascending); the stock state with the id. The expressions are the queries' (product-expressions.ts), word for
 * word: SQLite uses an expression index only for the same expression. The update trigger fires only when a text
 * column is written, so stock changes leave the text index alone.
 */
export class CatalogueSearch extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "product" add column "sku" text null');
    this.addSql('create unique index "product_sku_unique" on "product" (lower("sku"))');
    for (const [name, columns] of SEARCH_INDEXES) this.addSql(`create index "${name}" on "product" (${columns})`);
    this.addSql(
      `create virtual table "product_search" using fts5("name", "description", "sku", content = 'product', content_rowid = 'id', tokenize = 'trigram')`,
    );
    this.addSql(`insert into "product_search" ("product_search") values ('rebuild')`);
    this.addSql(`create trigger "product_search_insert" after insert on "product" begin
      insert into "product_search" ("rowid", "name", "description", "sku") values (${searchRow('new')});
    end`);
    this.addSql(`create trigger "product_search_delete" after delete on "product" begin
      insert into "product_search" ("product_search", "rowid", "name", "description", "sku") values ('delete', ${searchRow('old')});
    end`);
    this.addSql(`create trigger "product_search_update" after update of "name", "description", "sku" on "product" begin
      insert into "product_search" ("product_search", "rowid", "name", "description", "sku") values ('delete', ${searchRow('old')});
      insert into "product_search" ("rowid", "name", "description", "sku") values (${searchRow('new')});
    end`);
  }

  override async down(): Promise<void> {
    for (const trigger of ['update', 'delete', 'insert']) this.addSql(`drop trigger "product_search_${trigger}"`);
    this.addSql('drop table "product_search"');
    for (const [name] of SEARCH_INDEXES) this.addSql(`drop index "${name}"`);
    this.addSql('drop index "product_sku_unique"');
    this.addSql('alter table "product" drop column "sku"');
  }
}

/**
 * Movement sequences and trace ids, as on PostgreSQL (see postgresql.ts). SQLite's triggers cannot change the row
 * being written, so the ledger triggers move the product's counter with an update of their own (of a column they do
 * not watch), then number the movement from it; SQLite's writers take turns, so no two movements share a number.
 */
export class StockMovementSequence extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "product" add column "movement_sequence" integer not null default 0');
    this.addSql('alter table "stock_movement" add column "sequence" integer not null default 0');
    this.addSql('alter table "stock_movement" add column "trace_id" text null');
    this.addSql(`update "stock_movement" set "sequence" = (select count(*) from "stock_movement" "earlier"
      where "earlier"."product_id" = "stock_movement"."product_id" and "earlier"."id" <= "stock_movement"."id")`);
    this.addSql(
      `update "product" set "movement_sequence" = (select count(*) from "stock_movement" where "product_id" = "product"."id")`,
    );
    for (const sql of ledgerTriggers(true, true, true)) this.addSql(sql);
  }

  override async down(): Promise<void> {
    for (const sql of ledgerTriggers(true, true)) this.addSql(sql);
    this.addSql('alter table "stock_movement" drop column "trace_id"');
    this.addSql('alter table "stock_movement" drop column "sequence"');
    this.addSql('alter table "product" drop column "movement_sequence"');
  }
}

export const sqliteMigrations = [
  { name: '20261122-create-product', class: CreateProductTable },
  { name: '20261122-version-and-idempotency-keys', class: AddVersionAndIdempotencyKeys },
  { name: '20261123-generic-idempotency-records', class: GenericIdempotencyRecords },
  { name: '20261123-reservations-and-stock-ledger', class: ReservationsAndStockLedger },
  ...outboxMigrations('sqlite'),
  { name: '20261124-reservation-origin', class: ReservationOrigin },
  { name: '20261125-reservation-owner', class: ReservationOwner },
  { name: '20261125-stock-movement-actor', class: StockMovementActor },
  { name: '20261125-outbox-webhook-fan-out', class: outboxWebhookFanOutMigration('sqlite') },
  { name: '20261125-webhooks', class: webhookTablesMigration('sqlite') },
  { name: '20261125-stock-by-location', class: StockByLocation },
  { name: '20261125-catalogue-search', class: CatalogueSearch },
  { name: '20261125-stock-movement-sequence', class: StockMovementSequence },
  { name: '20261125-webhook-event-trace-context', class: webhookTraceContextMigration('sqlite') },
];
