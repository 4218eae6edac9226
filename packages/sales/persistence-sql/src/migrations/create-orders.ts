import { Migration } from '@mikro-orm/migrations';
import type { Dialect } from '@platform/persistence';

const STATUS_CHECK = `check ("status" in ('pending', 'reserved', 'paid', 'completed', 'rejected', 'cancelled', 'expired', 'unfulfilled'))`;

const DDL: Record<Dialect, string> = {
  postgresql: `create table "sales_order" (
      "id" varchar(36) not null primary key,
      "buyer" varchar(255) not null,
      "status" text not null ${STATUS_CHECK},
      "lines" text not null,
      "total_cents" bigint not null,
      "reservation_id" varchar(36) null,
      "reservation_expires_at" timestamptz null,
      "shortages" text null,
      "failure_reason" varchar(500) null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "version" integer not null default 1
    )`,
  sqlite: `create table "sales_order" (
      "id" text not null primary key,
      "buyer" text not null,
      "status" text not null ${STATUS_CHECK},
      "lines" text not null,
      "total_cents" integer not null,
      "reservation_id" text null,
      "reservation_expires_at" integer null,
      "shortages" text null,
      "failure_reason" text null,
      "created_at" integer not null,
      "updated_at" integer not null,
      "version" integer not null default 1
    )`,
};

/** The orders table: ids are time-ordered (UUID v7), so a buyer's orders page by (buyer, id). */
export function createOrders(dialect: Dialect): new (...args: ConstructorParameters<typeof Migration>) => Migration {
  return class CreateOrders extends Migration {
    override async up(): Promise<void> {
      this.addSql(DDL[dialect]);
      this.addSql('create index "sales_order_buyer_id_index" on "sales_order" ("buyer", "id")');
    }

    override async down(): Promise<void> {
      this.addSql('drop table "sales_order"');
    }
  };
}
