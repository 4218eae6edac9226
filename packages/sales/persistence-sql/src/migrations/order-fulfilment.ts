import { Migration } from '@mikro-orm/migrations';
import type { Dialect } from '@platform/persistence';

// Spelled out, not imported from the schema: a migration stays as it ran.
const STATUS_CHECK = `check ("status" in ('pending', 'reserved', 'paid', 'partially_shipped', 'shipped', 'returned', 'rejected', 'cancelled', 'expired', 'unfulfilled'))`;

/**
 * `completed` meant "stock took the units off the shelf": what shipping does now, so such an order is `shipped`, every
 * line's units shipped. Every other line has shipped and had returned none.
 */
const NEXT_STATUS = `case when "status" = 'completed' then 'shipped' else "status" end`;

/** Each order's lines with their counts, in their order (the same `status` is the row's before the update). */
const LINES_WITH_COUNTS: Record<Dialect, string> = {
  postgresql: `coalesce((
      select jsonb_agg(
        "line" || jsonb_build_object(
          'shippedQuantity', case when "status" = 'completed' then "line" -> 'quantity' else '0'::jsonb end,
          'returnedQuantity', 0
        ) order by "position")
      from jsonb_array_elements("lines"::jsonb) with ordinality as "l"("line", "position")
    ), '[]'::jsonb)::text`,
  sqlite: `(
      select json_group_array(json_set("value",
        '$.shippedQuantity', case when "status" = 'completed' then json_extract("value", '$.quantity') else 0 end,
        '$.returnedQuantity', 0
      ) order by "key")
      from json_each("lines")
    )`,
};

/**
 * Fulfilment (issue 33): an order's lines count their shipped and returned units, an order cancelled after payment
 * records that its payment is owed back (payment_to_release), and the statuses are those of OrderStatus. Every order's
 * version grows by one, as its JSON changed: a cached ETag must not answer 304 for it. SQLite cannot change a check,
 * so it rebuilds the table, as MikroORM's schema generator would.
 */
export function orderFulfilment(dialect: Dialect): new (...args: ConstructorParameters<typeof Migration>) => Migration {
  return class OrderFulfilment extends Migration {
    override async up(): Promise<void> {
      if (dialect === 'postgresql') {
        this.addSql('alter table "sales_order" drop constraint "sales_order_status_check"');
        this.addSql('alter table "sales_order" add "payment_to_release" boolean not null default false');
        this.addSql(`update "sales_order" set
          "lines" = ${LINES_WITH_COUNTS.postgresql},
          "status" = ${NEXT_STATUS},
          "version" = "version" + 1`);
        this.addSql(`alter table "sales_order" add constraint "sales_order_status_check" ${STATUS_CHECK}`);
        return;
      }
      this.addSql(`create table "sales_order_next" (
        "id" text not null primary key,
        "buyer" text not null,
        "status" text not null ${STATUS_CHECK},
        "lines" text not null,
        "total_cents" integer not null,
        "reservation_id" text null,
        "reservation_expires_at" integer null,
        "shortages" text null,
        "failure_reason" text null,
        "payment_to_release" integer not null default false,
        "created_at" integer not null,
        "updated_at" integer not null,
        "version" integer not null default 1
      )`);
      this.addSql(`insert into "sales_order_next"
          ("id", "buyer", "status", "lines", "total_cents", "reservation_id", "reservation_expires_at", "shortages",
           "failure_reason", "created_at", "updated_at", "version")
        select "id", "buyer", ${NEXT_STATUS}, ${LINES_WITH_COUNTS.sqlite}, "total_cents", "reservation_id",
          "reservation_expires_at", "shortages", "failure_reason", "created_at", "updated_at", "version" + 1
        from "sales_order"`);
      this.addSql('drop table "sales_order"');
      this.addSql('alter table "sales_order_next" rename to "sales_order"');
      this.addSql('create index "sales_order_buyer_id_index" on "sales_order" ("buyer", "id")');
    }

    override async down(): Promise<void> {
      throw new Error('Shipped, partly shipped and returned orders have no status before 20261129-order-fulfilment.');
    }
  };
}
