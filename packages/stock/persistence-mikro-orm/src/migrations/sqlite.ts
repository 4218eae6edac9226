import { Migration } from '@mikro-orm/migrations';

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

export const sqliteMigrations = [
  { name: '20261122-create-product', class: CreateProductTable },
  { name: '20261122-version-and-idempotency-keys', class: AddVersionAndIdempotencyKeys },
  { name: '20261123-generic-idempotency-records', class: GenericIdempotencyRecords },
];
