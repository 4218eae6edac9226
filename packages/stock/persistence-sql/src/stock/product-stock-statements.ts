import { query } from '@platform/persistence';
import { AVAILABLE, COVERS_HOLDS, DEFAULT_LOCATION_ID, LOW_STOCK_STEADY } from '@stock/domain';
import { renderCondition, renderTerm } from './render-condition';
import { MONEY_COLUMN } from '../tables/columns';
import { type ProductDbRow, productColumns } from '../tables/product';
import { levelColumns, levelIsEmpty } from '../tables/stock-level';
import { MOVEMENT_ARRAY_TYPES, MOVEMENT_COLUMNS } from '../tables/stock-movement';

/**
 * The statements that write a product's stock: its row, its levels and its
 * ledger together. Saving a change writes what the ProductStock aggregate
 * decided, guarded only by the version its lock read; the one-statement
 * paths of PostgreSQL (adjustAtOnce, replaceAtOnce) decide in SQL, with the
 * aggregate's own rules rendered (render-condition.ts), and the
 * changes-at-once contract holds each to the aggregate's answer.
 */

/**
 * PostgreSQL: one or several products' changes in one statement, each a set of arrays (unnest): the products'
 * rows set to their state after, only from the version each lock read ("saved"); their levels moved by the
 * changes' deltas, or created; their movements appended in ledger order. Answers a row per product saved (with each
 * movement appended, its id and sequence) and how many levels it wrote, so the caller sees any that was not.
 * Parameters: the products' arrays (id, version before, version after, stock, reserved, committed, quality control,
 * damaged, backordered, alert, sequence), the levels' (product, location, then the deltas of LEVEL_COLUMNS, whether
 * new), and the movements' (one array per column of MOVEMENT_COLUMNS).
 */
export const SAVE_STOCK = query<
  unknown[],
  { product_id: number; id: number | null; sequence: number | null; levels: number }
>(`with "product_change" as (
    select * from unnest(?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::boolean[], ?::bigint[])
      as "c"("id", "version_before", "version_after", "quantity_in_stock", "reserved_quantity", "committed_quantity", "quality_control_quantity", "damaged_quantity", "backordered_quantity", "low_stock_alert", "movement_sequence")
  ),
  "saved" as (
    update "product" set "quantity_in_stock" = "c"."quantity_in_stock", "reserved_quantity" = "c"."reserved_quantity",
      "committed_quantity" = "c"."committed_quantity", "quality_control_quantity" = "c"."quality_control_quantity",
      "damaged_quantity" = "c"."damaged_quantity",
      "backordered_quantity" = "c"."backordered_quantity", "low_stock_alert" = "c"."low_stock_alert",
      "movement_sequence" = "c"."movement_sequence", "version" = "c"."version_after"
    from "product_change" "c"
    where "product"."id" = "c"."id" and "product"."version" = "c"."version_before"
    returning "product"."id"
  ),
  "level_change" as (
    select * from unnest(?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::integer[], ?::boolean[])
      as "l"("product_id", "location_id", ${levelColumns()}, "new")
  ),
  "moved" as (
    update "stock_level" set "on_hand" = "stock_level"."on_hand" + "l"."on_hand",
      "reserved" = "stock_level"."reserved" + "l"."reserved", "committed" = "stock_level"."committed" + "l"."committed",
      "quality_control" = "stock_level"."quality_control" + "l"."quality_control",
      "damaged" = "stock_level"."damaged" + "l"."damaged", "incoming" = "stock_level"."incoming" + "l"."incoming"
    from "level_change" "l" join "saved" on "saved"."id" = "l"."product_id"
    where not "l"."new" and "stock_level"."product_id" = "l"."product_id" and "stock_level"."location_id" = "l"."location_id"
    returning 1
  ),
  "created" as (
    insert into "stock_level" ("product_id", "location_id", ${levelColumns()})
    select "l"."product_id", "l"."location_id", ${levelColumns('l')}
    from "level_change" "l" join "saved" on "saved"."id" = "l"."product_id" where "l"."new"
    returning 1
  ),
  "appended" as (
    insert into "stock_movement" (${MOVEMENT_COLUMNS})
    select ${MOVEMENT_COLUMNS.split(', ')
      .map((column) => `"m".${column}`)
      .join(', ')}
    from unnest(${MOVEMENT_ARRAY_TYPES.map((type) => `?::${type}[]`).join(', ')}) with ordinality
      as "m"(${MOVEMENT_COLUMNS}, "ord")
    join "saved" on "saved"."id" = "m"."product_id"
    order by "m"."ord"
    returning "id", "product_id", "sequence"
  )
  select "saved"."id" as "product_id", "appended"."id", "appended"."sequence",
    (select count(*) from "moved") + (select count(*) from "created") as "levels"
  from "saved" left join "appended" on "appended"."product_id" = "saved"."id"`);

/**
 * PostgreSQL: the common change, one product moving one level it has, with one movement or none (an adjustment, a
 * hold or a settlement at one location), as SAVE_STOCK writes it, in scalars: the arrays' unnesting costs a third
 * of a hot product's throughput while its lock is held. Parameters: the product's state after (stock, reserved,
 * committed, quality control, damaged, backordered, alert, sequence, version), its id and version before; the level's
 * deltas (LEVEL_COLUMNS) and location; the movement's columns but its product (MOVEMENT_COLUMNS), then whether there
 * is one.
 * Answers the product saved, the movement's id (or null), and how many levels it moved.
 */
export const SAVE_ONE = query<unknown[], { product_id: number; id: number | null; levels: number }>(`with "saved" as (
    update "product" set "quantity_in_stock" = ?::integer, "reserved_quantity" = ?::integer, "committed_quantity" = ?::integer,
      "quality_control_quantity" = ?::integer, "damaged_quantity" = ?::integer, "backordered_quantity" = ?::integer,
      "low_stock_alert" = ?::boolean, "movement_sequence" = ?::bigint, "version" = ?::integer
    where "id" = ?::integer and "version" = ?::integer
    returning "id"
  ),
  "moved" as (
    update "stock_level" set "on_hand" = "on_hand" + ?::integer, "reserved" = "reserved" + ?::integer,
      "committed" = "committed" + ?::integer, "quality_control" = "quality_control" + ?::integer,
      "damaged" = "damaged" + ?::integer, "incoming" = "incoming" + ?::integer
    from "saved" where "stock_level"."product_id" = "saved"."id" and "stock_level"."location_id" = ?::integer
    returning 1
  ),
  "appended" as (
    insert into "stock_movement" (${MOVEMENT_COLUMNS})
    select "saved"."id", ${MOVEMENT_ARRAY_TYPES.slice(1)
      .map((type) => `?::${type}`)
      .join(', ')}
    from "saved" where ?::boolean
    returning "id"
  )
  select "saved"."id" as "product_id", "appended"."id", (select count(*) from "moved") as "levels"
  from "saved" left join "appended" on true`);

/**
 * SQLite: a product with its ledger sequence and its levels (one row each, in location order; one row of nulls for
 * none), in one statement. Its writers take turns, so what a transaction reads is what it writes on; PostgreSQL locks
 * the product, then reads its levels in a statement of their own (`lock`).
 */
export const SQLITE_LOCK = query<
  [id: number],
  ProductDbRow & {
    movement_sequence: number;
    location_id: number | null;
    on_hand: number;
    reserved_at: number;
    committed: number;
    quality_control: number;
    damaged: number;
    incoming: number;
  }
>(
  `select ${productColumns('sqlite', 'product')}, "product"."movement_sequence", "stock_level"."location_id", "stock_level"."on_hand", "stock_level"."reserved" as "reserved_at", "stock_level"."committed", "stock_level"."quality_control", "stock_level"."damaged", "stock_level"."incoming"
    from "product" left join "stock_level" on "stock_level"."product_id" = "product"."id"
    where "product"."id" = ? order by "stock_level"."location_id"`,
);

/** A level's quantities or their deltas, in LEVEL_COLUMNS' order. */
export type LevelDeltas = [
  onHand: number,
  reserved: number,
  committed: number,
  qualityControl: number,
  damaged: number,
  incoming: number,
];

/** SQLite's steps of a save, in the caller's transaction: its writes are calls in the process, not round trips. */
export const SQLITE_SAVE = {
  /** The product's row set to its state after, only from the version its lock read. */
  product: query<
    [
      quantityInStock: number,
      reservedQuantity: number,
      committedQuantity: number,
      qualityControlQuantity: number,
      damagedQuantity: number,
      backorderedQuantity: number,
      lowStockAlert: number,
      movementSequence: number,
      versionAfter: number,
      id: number,
      versionBefore: number,
    ],
    { id: number }
  >(
    `update "product" set "quantity_in_stock" = ?, "reserved_quantity" = ?, "committed_quantity" = ?, "quality_control_quantity" = ?, "damaged_quantity" = ?, "backordered_quantity" = ?, "low_stock_alert" = ?, "movement_sequence" = ?, "version" = ? where "id" = ? and "version" = ? returning "id"`,
  ),
  /** A level moved by a change's deltas (LEVEL_COLUMNS'). */
  moveLevel: query<[...deltas: LevelDeltas, productId: number, locationId: number]>(
    `update "stock_level" set "on_hand" = "on_hand" + ?, "reserved" = "reserved" + ?, "committed" = "committed" + ?, "quality_control" = "quality_control" + ?, "damaged" = "damaged" + ?, "incoming" = "incoming" + ? where "product_id" = ? and "location_id" = ?`,
  ),
  /** A level a change creates. */
  createLevel: query<[productId: number, locationId: number, ...quantities: LevelDeltas]>(
    `insert into "stock_level" ("product_id", "location_id", ${levelColumns()}) values (?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
} as const;

/** The context of a movement a one-statement path appends: reason, request, actor, trace, time. */
const CONTEXT_PARAMS = '?::text, ?::text, ?::text, ?::text, ?::timestamptz';

/**
 * When ProductStock.replace answers exactly one `updated` change at the default location, in the aggregate's own
 * rules, on the product as the statement's snapshot read it: no other level holds anything (LEVEL_IS_EMPTY), the
 * default level exists and covers what is held there (COVERS_HOLDS), and the alert stays as it is at the new
 * threshold (LOW_STOCK_STEADY).
 */
const PLAIN_REPLACEMENT = (() => {
  const wide = { bigint: true };
  const threshold = 'coalesce("replacement"."threshold", "product"."low_stock_threshold")';
  const after = renderTerm(
    AVAILABLE,
    {
      quantityInStock: '"replacement"."quantity"',
      reservedQuantity: '"product"."reserved_quantity"',
      committedQuantity: '"product"."committed_quantity"',
      qualityControlQuantity: '"product"."quality_control_quantity"',
      damagedQuantity: '"product"."damaged_quantity"',
      backorderedQuantity: '"product"."backordered_quantity"',
    },
    wide,
  );
  const covered = renderCondition(
    COVERS_HOLDS,
    {
      quantity: '"replacement"."quantity"',
      reserved: '"default"."reserved"',
      committed: '"default"."committed"',
      qualityControl: '"default"."quality_control"',
      damaged: '"default"."damaged"',
    },
    wide,
  );
  return [
    `not exists (select 1 from "stock_level" "other" where "other"."product_id" = "product"."id" and "other"."location_id" <> ${DEFAULT_LOCATION_ID} and not (${levelIsEmpty('other')}))`,
    `exists (select 1 from "stock_level" "default" where "default"."product_id" = "product"."id" and "default"."location_id" = ${DEFAULT_LOCATION_ID} and ${covered})`,
    renderCondition(
      LOW_STOCK_STEADY,
      {
        available: after,
        lowStockThreshold: threshold,
        lowStockAlert: '"product"."low_stock_alert"',
        hysteresis: '"replacement"."hysteresis"',
      },
      wide,
    ),
  ].join('\n          and ');
})();

/**
 * PostgreSQL: a PUT made at once (replaceAtOnce): the details, and the stock at the default location when it
 * changes (PLAIN_REPLACEMENT), the version moving by 1, or 2 when the stock changes (UpdateProduct's details, then
 * its change), with one `updated` movement when it does. Only while the product is at the version the statement's
 * snapshot read ("before"): every change to a level moves its product's version in the same transaction, so the
 * levels the rules read are the levels as they are. Parameters: product, new stock, threshold (null: unchanged),
 * hysteresis, then name, description, price, backorder limit (null: unchanged), then the movement's context
 * (reason, request, actor, trace, time), then the expected version when versioned. Answers the product, and its
 * stock before ("stock_before"), which tells whether the ledger got a movement.
 */
function replaceAtOnceSql(versioned: boolean): string {
  const price = MONEY_COLUMN.postgresql.name;
  const threshold = 'coalesce("replacement"."threshold", "low_stock_threshold")';
  const changes = '"product"."quantity_in_stock" <> "replacement"."quantity"';
  return `with "replacement" ("product_id", "quantity", "threshold", "hysteresis") as (values (?::integer, ?::integer, ?::integer, ?::integer)),
    "details" ("name", "description", "price", "backorder_limit") as (values (?::text, ?::text, ?::numeric, ?::integer)),
    "context" ("reason", "request_id", "actor", "trace_id", "at") as (values (${CONTEXT_PARAMS})),
    "before" as (select "quantity_in_stock", "version" from "product", "replacement" where "id" = "replacement"."product_id"),
    "replaced" as (
      update "product" set "name" = "details"."name", "description" = "details"."description", "${price}" = "details"."price",
        "backorder_limit" = coalesce("details"."backorder_limit", "product"."backorder_limit"),
        "low_stock_threshold" = ${threshold}, "quantity_in_stock" = "replacement"."quantity",
        "movement_sequence" = "product"."movement_sequence" + case when ${changes} then 1 else 0 end,
        "version" = "product"."version" + case when ${changes} then 2 else 1 end
      from "replacement", "details"
      where "product"."id" = "replacement"."product_id"${versioned ? ' and "product"."version" = ?' : ''} and "product"."version" = (select "version" from "before")
        and ("product"."quantity_in_stock" = "replacement"."quantity" or (${PLAIN_REPLACEMENT}))
      returning ${productColumns('postgresql', 'product')}, "product"."movement_sequence"
    ),
    "level" as (
      update "stock_level" set "on_hand" = "stock_level"."on_hand" + "replacement"."quantity" - "before"."quantity_in_stock"
      from "replaced", "replacement", "before"
      where "stock_level"."product_id" = "replaced"."id" and "stock_level"."location_id" = ${DEFAULT_LOCATION_ID} and "before"."quantity_in_stock" <> "replacement"."quantity"
      returning "stock_level"."location_id"
    ),
    "appended" as (
      insert into "stock_movement" (${MOVEMENT_COLUMNS})
      select "replaced"."id", "level"."location_id", null, 'updated', "replacement"."quantity" - "before"."quantity_in_stock", 0, 0, 0, 0,
        "replaced"."quantity_in_stock", "replaced"."reserved_quantity", 'updated', "context"."reason", null, "context"."request_id",
        "context"."actor", "context"."trace_id", "replaced"."movement_sequence", "context"."at"
      from "replaced", "level", "replacement", "before", "context"
    )
    select ${productColumns('postgresql', 'replaced')}, (select "quantity_in_stock" from "before") as "stock_before" from "replaced"`;
}

export const REPLACE_AT_ONCE = {
  unversioned: query<unknown[], ProductDbRow & { stock_before: number }>(replaceAtOnceSql(false)),
  versioned: query<unknown[], ProductDbRow & { stock_before: number }>(replaceAtOnceSql(true)),
} as const;

/** PostgreSQL: the products locked in id order (`order by` sorts before the rows are locked), with their sequences. */
export const LOCK_MANY = query<[ids: number[]], ProductDbRow & { movement_sequence: number }>(
  `select ${productColumns('postgresql')}, "movement_sequence" from "product" where "id" = any(?::integer[]) order by "id" for update`,
);

/**
 * PostgreSQL: new products (ProductRepository.add and addMany) in one statement, each with its first level and the
 * opening movement of its ledger as ProductStock.opening decided them: their ids drawn from the identity's sequence in
 * the rows' order, so the answer is matched to the rows by "ord", not by the order an insert returns. Parameters:
 * names, descriptions, prices, stocks, backorder limits, thresholds, SKUs; then the openings' locations, kinds,
 * quantity and reserved deltas, totals after, reason codes, level on hand and sequences; then the context (reason,
 * reservation, request, actor, trace, time). An opening moves no other state.
 */
export const ADD_PRODUCTS = query<unknown[], ProductDbRow & { ord: number }>(`with "source" as (
    select nextval(pg_get_serial_sequence('"product"', 'id')) as "new_id", "row".*
    from unnest(?::text[], ?::text[], ?::numeric[], ?::integer[], ?::integer[], ?::integer[], ?::text[],
        ?::integer[], ?::text[], ?::bigint[], ?::bigint[], ?::integer[], ?::integer[], ?::text[], ?::integer[], ?::bigint[])
      with ordinality as "row"("new_name", "new_description", "new_price", "new_stock", "new_backorder_limit", "new_threshold", "new_sku",
        "location_id", "kind", "quantity_delta", "reserved_delta", "quantity_after", "reserved_after", "reason_code", "on_hand", "sequence", "ord")
  ),
  "context" ("reason", "reservation_id", "request_id", "actor", "trace_id", "at") as (values (?::text, ?::text, ?::text, ?::text, ?::text, ?::timestamptz)),
  "created" as (
    insert into "product" ("id", "name", "description", "price", "quantity_in_stock", "reserved_quantity", "backorder_limit", "low_stock_threshold", "sku", "movement_sequence", "version")
    select "new_id", "new_name", "new_description", "new_price", "new_stock", 0, "new_backorder_limit", "new_threshold", "new_sku", "sequence", 1
    from "source" order by "ord"
    returning ${productColumns('postgresql')}
  ),
  "level" as (
    insert into "stock_level" ("product_id", "location_id", "on_hand")
    select "source"."new_id", "source"."location_id", "source"."on_hand" from "source" join "created" on "created"."id" = "source"."new_id"
  ),
  "opening" as (
    insert into "stock_movement" (${MOVEMENT_COLUMNS})
    select "source"."new_id", "source"."location_id", null, "source"."kind", "source"."quantity_delta", "source"."reserved_delta", 0, 0, 0,
      "source"."quantity_after", "source"."reserved_after", "source"."reason_code", "context"."reason", "context"."reservation_id", "context"."request_id",
      "context"."actor", "context"."trace_id", "source"."sequence", "context"."at"
    from "source" join "created" on "created"."id" = "source"."new_id", "context"
    order by "source"."ord"
  )
  select ${productColumns('postgresql', 'created')}, "source"."ord" from "created" join "source" on "source"."new_id" = "created"."id" order by "source"."ord"`);

/**
 * PostgreSQL: one new product (ProductRepository.add) as ADD_PRODUCTS writes each, in scalars (a POST's one row
 * needs no arrays). Parameters: name, description, price, stock, backorder limit, threshold, SKU, ledger sequence;
 * the first level's location and on hand; the opening movement's columns but its product (MOVEMENT_COLUMNS).
 */
export const ADD_PRODUCT = query<unknown[], ProductDbRow>(`with "created" as (
    insert into "product" ("name", "description", "price", "quantity_in_stock", "reserved_quantity", "backorder_limit", "low_stock_threshold", "sku", "movement_sequence", "version")
    values (?::text, ?::text, ?::numeric, ?::integer, 0, ?::integer, ?::integer, ?::text, ?::bigint, 1)
    returning ${productColumns('postgresql')}
  ),
  "level" as (
    insert into "stock_level" ("product_id", "location_id", "on_hand") select "id", ?::integer, ?::integer from "created"
  ),
  "opening" as (
    insert into "stock_movement" (${MOVEMENT_COLUMNS})
    select "id", ${MOVEMENT_ARRAY_TYPES.slice(1)
      .map((type) => `?::${type}`)
      .join(', ')} from "created"
  )
  select ${productColumns('postgresql')} from "created"`);

/** SQLite: a new product's row (its first level and movement follow, in the caller's transaction). */
export const SQLITE_ADD_PRODUCT = query<
  [
    name: string,
    description: string,
    price: number,
    quantityInStock: number,
    backorderLimit: number,
    lowStockThreshold: number,
    sku: string | null,
    movementSequence: number,
  ],
  ProductDbRow
>(
  `insert into "product" ("name", "description", "price_cents", "quantity_in_stock", "reserved_quantity", "backorder_limit", "low_stock_threshold", "sku", "movement_sequence", "version") values (?, ?, ?, ?, 0, ?, ?, ?, ?, 1) returning ${productColumns('sqlite')}`,
);
