import { type PreparedStatement, prepared } from '@platform/mikro-orm';
import { DEFAULT_LOCATION_ID, STOCK_MAX } from '@stock/domain';
import { productColumns } from './product-rows';
import { GUARD } from './product-statements';

/**
 * PostgreSQL's statements for a batch of products (an import's): each takes
 * one array per column and unnests them, so a batch costs one round trip and
 * one plan whatever its size. SQLite runs the one-product statements in a
 * loop instead: its statements are calls in the process, not round trips.
 */
export interface BatchStatements {
  /**
   * New products with their default levels (ProductRepository.addMany): their ids drawn from the identity's
   * sequence in the rows' order, so the answer is matched to the rows by "ord", not by the order an insert returns.
   * Parameters: names, descriptions, prices, stocks, backorder limits, thresholds, SKUs, write context.
   */
  readonly insert: PreparedStatement;
  /**
   * Details of locked products at their versions (updateDetailsMany). Parameters: ids, versions, names,
   * descriptions, prices, backorder limits and thresholds (null: kept), whether to keep the SKU, SKUs.
   */
  readonly updateDetails: PreparedStatement;
  /** The products, locked in id order (`order by` sorts before the rows are locked). Parameter: ids. */
  readonly lock: PreparedStatement;
  /** Their levels, read after the lock, by product then location. Parameter: ids. */
  readonly levels: PreparedStatement;
  /**
   * One change to each of distinct locked products (applyMany): each level updated, or created where it has none,
   * under GUARD's conditions; each product's totals, state and version moved only where its level was, under
   * GUARD.totals, with its own write context, so the ledger trigger appends each change's movement. Answers the
   * products changed: one missing means a guard refused. Parameters: products, locations, on hand, reserved,
   * incoming, backordered, alerts (null: kept), write contexts.
   */
  readonly apply: PreparedStatement;
}

function batchStatements(): BatchStatements {
  const columns = productColumns('postgresql');
  const qualified = columns
    .split(', ')
    .map((column) => `"product".${column}`)
    .join(', ');
  const same = `"stock_level"."product_id" = "change"."product_id" and "stock_level"."location_id" = "change"."location_id"`;
  return {
    insert: prepared(`with "source" as (
        select nextval(pg_get_serial_sequence('"product"', 'id')) as "new_id", "row".*
        from unnest(?::text[], ?::text[], ?::numeric[], ?::integer[], ?::integer[], ?::integer[], ?::text[])
          with ordinality as "row"("new_name", "new_description", "new_price", "new_stock", "new_backorder_limit", "new_threshold", "new_sku", "ord")
      ),
      "created" as (
        insert into "product" ("id", "name", "description", "price", "quantity_in_stock", "reserved_quantity", "backorder_limit", "low_stock_threshold", "sku", "write_context", "version")
        select "new_id", "new_name", "new_description", "new_price", "new_stock", 0, "new_backorder_limit", "new_threshold", "new_sku", ?::jsonb, 1
        from "source" order by "ord"
        returning ${columns}
      ),
      "level" as (
        insert into "stock_level" ("product_id", "location_id", "on_hand")
        select "id", ${DEFAULT_LOCATION_ID}, "quantity_in_stock" from "created"
      )
      select ${columns}, "ord" from "created" join "source" on "source"."new_id" = "created"."id" order by "source"."ord"`),
    updateDetails:
      prepared(`update "product" set "name" = "new"."name", "description" = "new"."description", "price" = "new"."price",
        "backorder_limit" = coalesce("new"."backorder_limit", "product"."backorder_limit"),
        "low_stock_threshold" = coalesce("new"."low_stock_threshold", "product"."low_stock_threshold"),
        "sku" = case when "new"."keep_sku" then "product"."sku" else "new"."sku" end, "version" = "product"."version" + 1
      from unnest(?::integer[], ?::integer[], ?::text[], ?::text[], ?::numeric[], ?::integer[], ?::integer[], ?::boolean[], ?::text[])
        as "new"("product_id", "expected_version", "name", "description", "price", "backorder_limit", "low_stock_threshold", "keep_sku", "sku")
      where "product"."id" = "new"."product_id" and "product"."version" = "new"."expected_version"
      returning ${qualified}`),
    lock: prepared(`select ${columns} from "product" where "id" = any(?::integer[]) order by "id" for update`),
    levels: prepared(
      `select "product_id", "location_id", "on_hand", "reserved", "incoming" from "stock_level" where "product_id" = any(?::integer[]) order by "product_id", "location_id"`,
    ),
    apply: prepared(`with "change" as (
        select * from unnest(?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::boolean[], ?::text[])
          as "change"("product_id", "location_id", "on_hand", "reserved", "incoming", "backordered", "alert", "context")
      ),
      "changed" as (
        update "stock_level" set "on_hand" = "stock_level"."on_hand" + "change"."on_hand", "reserved" = "stock_level"."reserved" + "change"."reserved", "incoming" = "stock_level"."incoming" + "change"."incoming"
        from "change" where ${same} and ${GUARD.level} returning "stock_level"."product_id"
      ),
      "created" as (
        insert into "stock_level" ("product_id", "location_id", "on_hand", "reserved", "incoming")
        select "product_id", "location_id", "on_hand", "reserved", "incoming" from "change"
        where not exists (select 1 from "stock_level" where ${same}) and ${GUARD.newLevel} returning "product_id"
      )
      update "product" set "quantity_in_stock" = "product"."quantity_in_stock" + "change"."on_hand",
        "reserved_quantity" = "product"."reserved_quantity" + "change"."reserved",
        "backordered_quantity" = "product"."backordered_quantity" + "change"."backordered",
        "low_stock_alert" = coalesce("change"."alert", "product"."low_stock_alert"),
        "write_context" = "change"."context"::jsonb, "version" = "product"."version" + 1
      from "change"
      where "product"."id" = "change"."product_id"
        and "product"."id" in (select "product_id" from "changed" union all select "product_id" from "created")
        and cast("product"."quantity_in_stock" as bigint) + "change"."on_hand" <= ${STOCK_MAX}
        and "product"."backordered_quantity" + "change"."backordered" >= 0
      returning ${qualified}`),
  };
}

let cache: BatchStatements | undefined;

/** PostgreSQL's batch statements, built once (each text keeps its prepared name for the life of the process). */
export function postgresBatchStatements(): BatchStatements {
  return (cache ??= batchStatements());
}
