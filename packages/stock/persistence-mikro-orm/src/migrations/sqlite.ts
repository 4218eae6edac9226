import { Migration } from '@mikro-orm/migrations';
import { outboxMigrations } from '@platform/mikro-orm';
import { outboxWebhookFanOutMigration, webhookTablesMigration } from '@platform/webhooks/mikro-orm';

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

/** The ledger triggers, with or without the movement's actor (SQLite has no create or replace for triggers). */
function ledgerTriggers(withActor: boolean): string[] {
  const actor = withActor
    ? { column: ', "actor"', value: `, json_extract(new."write_context", '$.actor')` }
    : { column: '', value: '' };
  const movement = (
    kind: string,
    from: { quantity: string; reserved: string },
  ) => `insert into "stock_movement" ("product_id", "kind", "quantity_delta", "reserved_delta", "quantity_after", "reserved_after", "reason", "reservation_id", "request_id"${actor.column}, "at")
        values (new."id", coalesce(json_extract(new."write_context", '$.kind'), '${kind}'),
          new."quantity_in_stock" - ${from.quantity}, new."reserved_quantity" - ${from.reserved}, new."quantity_in_stock", new."reserved_quantity",
          json_extract(new."write_context", '$.reason'), json_extract(new."write_context", '$.reservationId'), json_extract(new."write_context", '$.requestId')${actor.value},
          coalesce(json_extract(new."write_context", '$.atMs'), cast(unixepoch('subsec') * 1000 as integer)))`;
  return [
    'drop trigger "product_stock_movement_on_insert"',
    'drop trigger "product_stock_movement_on_update"',
    `create trigger "product_stock_movement_on_insert" after insert on "product" begin
      ${movement('created', { quantity: '0', reserved: '0' })};
    end`,
    `create trigger "product_stock_movement_on_update" after update of "quantity_in_stock", "reserved_quantity" on "product"
      when new."quantity_in_stock" <> old."quantity_in_stock" or new."reserved_quantity" <> old."reserved_quantity" begin
      ${movement('updated', { quantity: 'old."quantity_in_stock"', reserved: 'old."reserved_quantity"' })};
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
];
