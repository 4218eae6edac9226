import { type PreparedStatement, prepared } from '@platform/mikro-orm';
import { DEFAULT_LOCATION_ID, STOCK_MAX, type StockState } from '@stock/domain';
import { productColumns } from './product-rows';
import { STOCK_STATE } from './product-expressions';
import { MONEY_COLUMN } from './product-schema';

type Dialect = 'postgresql' | 'sqlite';

/**
 * The stock rules of @stock/domain as the conditions of the conditional
 * writes: the atomic guard, checked and written under the row's lock. A plan
 * made with the rules of stock-levels.ts never trips them; one made from a
 * stale read does, and the write is refused instead of overselling.
 */
export const GUARD = {
  /** A level after a change: 0 ≤ reserved ≤ on hand, incoming ≥ 0 (the table's checks, as a refusal). */
  level: `"stock_level"."reserved" + "change"."reserved" >= 0 and "stock_level"."reserved" + "change"."reserved" <= "stock_level"."on_hand" + "change"."on_hand" and "stock_level"."incoming" + "change"."incoming" >= 0`,
  /** A level the change creates, from nothing: the same bounds. */
  newLevel: `"change"."reserved" >= 0 and "change"."reserved" <= "change"."on_hand" and "change"."incoming" >= 0`,
  /** The product after a change: its stock (+ ?) at most STOCK_MAX, summed as a bigint; its backorders (+ ?) ≥ 0. */
  totals: `cast("quantity_in_stock" as bigint) + ? <= ${STOCK_MAX} and "backordered_quantity" + ? >= 0`,
  /** productRemovalBlocked: nothing held, backordered or incoming (the product's id is the parameter). */
  remove: `"reserved_quantity" = 0 and "backordered_quantity" = 0 and not exists (select 1 from "stock_level" where "product_id" = ? and "incoming" > 0)`,
} as const;

/**
 * The conditions under which a change made at once (StockLevelRepository.adjustAtOnce, replaceAtOnce) is the one
 * plain change the transactional path would make: each is the domain rule named beside it, read under the product's
 * lock. What they read of the product is its row as it is locked; what they read of its levels is the statement's
 * snapshot, which another transaction may have changed before this one got the lock: the level's own check then
 * refuses the statement (see MikroOrmStockLevelRepository), or the PUT's version check finds the product moved.
 */
export const AT_ONCE = {
  /** planAdjustment: the location has a level, and its on hand + delta stays at or above what is held there. */
  level: `exists (select 1 from "stock_level" where "stock_level"."product_id" = "product"."id" and "stock_level"."location_id" = "adjustment"."location_id" and cast("stock_level"."on_hand" as bigint) + "adjustment"."delta" >= "stock_level"."reserved")`,
  /** planAdjustment: the product's stock + delta stays at most STOCK_MAX (and at or above what it holds: its check). */
  total: `cast("quantity_in_stock" as bigint) + "adjustment"."delta" between "reserved_quantity" and ${STOCK_MAX}`,
  /** AdjustStock fills backorders with stock that arrives (fillBackorders): none may wait when delta > 0. */
  noFills: `("adjustment"."delta" <= 0 or "backordered_quantity" = 0)`,
  /**
   * lowStockCrossing answers the alert the product has, so no event: not alerted and threshold off or not crossed
   * downwards; alerted (with a threshold: 0 would quietly clear it) and not back to threshold + hysteresis.
   */
  steady: (after: string, threshold: string, hysteresis: string) =>
    `((not "low_stock_alert" and (${threshold} = 0 or ${after} >= ${threshold})) or ("low_stock_alert" and ${threshold} > 0 and ${after} < ${threshold} + ${hysteresis}))`,
  /** planStockReplacement 'several-locations': no stock, holds or incoming units at any location but the default. */
  alone: `not exists (select 1 from "stock_level" where "product_id" = "product"."id" and "location_id" <> ${DEFAULT_LOCATION_ID} and ("on_hand" > 0 or "reserved" > 0 or "incoming" > 0))`,
  /** planStockReplacement 'below-reserved': the default location has a level, holding no more than the new stock. */
  covered: `exists (select 1 from "stock_level" where "product_id" = "product"."id" and "location_id" = ${DEFAULT_LOCATION_ID} and "reserved" <= "replacement"."quantity")`,
} as const;

/**
 * The fixed statements of the product and stock-level repositories for one
 * dialect; the bench's raw baselines send the same ones. A GET sends
 * `findById`, a page `list`, a POST `insert` (SQLite: and `insertLevel`), a
 * PUT `lock`, `levels`, `updateDetails` and, when the stock changes, the
 * change's `applyLevel` (SQLite: `applyLevel`, `createLevel` when it found no
 * level, and `applyTotals`), and an adjustment `lock`, `levels` and
 * `applyLevel` (SQLite: as for the PUT), both in a transaction.
 */
export interface ProductStatements {
  readonly columns: string;
  /**
   * The product with its stock at the default location: on PostgreSQL one statement (the level in a data-modifying
   * CTE); the ledger trigger appends its `created` movement.
   */
  readonly insert: PreparedStatement;
  /** SQLite: the new product's default level, in the caller's transaction. */
  readonly insertLevel: PreparedStatement | undefined;
  readonly findById: PreparedStatement;
  /** The product with a SKU, ignoring case: the unique index on lower("sku") answers it. */
  readonly findBySku: PreparedStatement;
  /** A page in id order, in a stock state when asked. */
  list(stockState?: StockState): PreparedStatement;
  updateDetails(versioned: boolean): PreparedStatement;
  readonly remove: PreparedStatement;
  /** The product row, locked until the transaction ends (PostgreSQL: `for update`; SQLite's writers take turns). */
  readonly lock: PreparedStatement;
  /** Its levels, read after the lock (a statement of their own, so READ COMMITTED reads them as they are now). */
  readonly levels: PreparedStatement;
  /**
   * One level change: the level's guarded update, or its creation where it has none; on PostgreSQL with the product's
   * totals in the same statement (answering the product, or nothing when a guard refused). SQLite: the update alone.
   */
  readonly applyLevel: PreparedStatement;
  /** SQLite: the level a change creates, guarded, when `applyLevel` found none to update. */
  readonly createLevel: PreparedStatement | undefined;
  /**
   * The product's totals and state after a change, guarded: SQLite's second statement of a change, and a change of
   * the product alone.
   */
  readonly applyTotals: PreparedStatement;
  /**
   * PostgreSQL: an adjustment made at once (adjustAtOnce), one statement sent without BEGIN/COMMIT: the product
   * updated under AT_ONCE's conditions (its row locked first), then its level, answering the product or nothing.
   */
  readonly adjustAtOnce: PreparedStatement | undefined;
  /** PostgreSQL: a PUT made at once (replaceAtOnce), as `adjustAtOnce`; versioned when the caller expects a version. */
  replaceAtOnce(versioned: boolean): PreparedStatement | undefined;
}

function statements(dialect: Dialect): ProductStatements {
  const price = MONEY_COLUMN[dialect].name;
  const columns = productColumns(dialect);
  const conditional = (write: string) => prepared(conditionalWrite(dialect, write, columns));
  const insertProduct = `insert into "product" ("name", "description", "${price}", "quantity_in_stock", "reserved_quantity", "backorder_limit", "low_stock_threshold", "sku", "write_context", "version") values (?, ?, ?, ?, 0, ?, ?, ?, ?, 1) returning ${columns}`;
  // The SKU's parameters: 1 to keep it (the details left it out), else 0 and the new one (null: none).
  const keepSku = dialect === 'postgresql' ? '?::integer = 1' : '? = 1';
  const updateDetails = (versioned: boolean) =>
    conditional(
      `update "product" set "name" = ?, "description" = ?, "${price}" = ?, "backorder_limit" = coalesce(?, "backorder_limit"), "low_stock_threshold" = coalesce(?, "low_stock_threshold"), "sku" = case when ${keepSku} then "sku" else ? end, "version" = "version" + 1 where "id" = ?${versioned ? ' and "version" = ?' : ''}`,
    );
  const [unversioned, versioned] = [updateDetails(false), updateDetails(true)];
  const list = (where: string) =>
    prepared(`select ${columns} from "product" where "id" > ?${where} order by "id" limit ?`);
  const lists = {
    all: list(''),
    // The state's expression index (with the id) answers these.
    out: list(` and ${STOCK_STATE} = 'out'`),
    low: list(` and ${STOCK_STATE} = 'low'`),
    in: list(` and ${STOCK_STATE} = 'in'`),
  };
  // One change as a row: (product, location, on hand, reserved, incoming), typed for PostgreSQL's planner.
  const change = `with "change" ("product_id", "location_id", "on_hand", "reserved", "incoming") as (values (${
    dialect === 'postgresql' ? '?::integer, ?::integer, ?::integer, ?::integer, ?::integer' : '?, ?, ?, ?, ?'
  }))`;
  const same = `"stock_level"."product_id" = "change"."product_id" and "stock_level"."location_id" = "change"."location_id"`;
  const updateLevel = `update "stock_level" set "on_hand" = "stock_level"."on_hand" + "change"."on_hand", "reserved" = "stock_level"."reserved" + "change"."reserved", "incoming" = "stock_level"."incoming" + "change"."incoming"
    from "change" where ${same} and ${GUARD.level} returning 1`;
  // PostgreSQL checks a row an upsert proposes before it finds the conflict, so a change (a delta) cannot be upserted:
  // the level is updated when it exists, created when it does not, each guarded.
  const createLevel = `insert into "stock_level" ("product_id", "location_id", "on_hand", "reserved", "incoming")
    select "product_id", "location_id", "on_hand", "reserved", "incoming" from "change"
    where not exists (select 1 from "stock_level" where ${same}) and ${GUARD.newLevel} returning 1`;
  const totals = (where: string) =>
    `update "product" set "quantity_in_stock" = "quantity_in_stock" + ?, "reserved_quantity" = "reserved_quantity" + ?, "backordered_quantity" = "backordered_quantity" + ?, "low_stock_alert" = coalesce(?, "low_stock_alert"), "write_context" = ?, "version" = "version" + ? where "id" = ?${where} and ${GUARD.totals} returning ${columns}`;
  const [adjustAtOnce, replaceAtOnce, replaceAtOnceVersioned] =
    dialect === 'postgresql'
      ? [
          prepared(adjustAtOnceSql(columns)),
          prepared(replaceAtOnceSql(columns, price, false)),
          prepared(replaceAtOnceSql(columns, price, true)),
        ]
      : [];
  return {
    columns,
    adjustAtOnce,
    replaceAtOnce: (isVersioned) => (isVersioned ? replaceAtOnceVersioned : replaceAtOnce),
    insert: prepared(
      dialect === 'postgresql'
        ? `with "created" as (${insertProduct}),
            "level" as (insert into "stock_level" ("product_id", "location_id", "on_hand") select "id", ${DEFAULT_LOCATION_ID}, "quantity_in_stock" from "created")
          select ${columns} from "created"`
        : insertProduct,
    ),
    insertLevel:
      dialect === 'sqlite'
        ? prepared(
            `insert into "stock_level" ("product_id", "location_id", "on_hand") values (?, ${DEFAULT_LOCATION_ID}, ?)`,
          )
        : undefined,
    findById: prepared(`select ${columns} from "product" where "id" = ?`),
    findBySku: prepared(`select ${columns} from "product" where lower("sku") = lower(?)`),
    list: (stockState) => lists[stockState ?? 'all'],
    updateDetails: (isVersioned) => (isVersioned ? versioned : unversioned),
    remove: conditional(`delete from "product" where "id" = ? and ${GUARD.remove}`),
    lock: prepared(`select ${columns} from "product" where "id" = ?${dialect === 'postgresql' ? ' for update' : ''}`),
    levels: prepared(
      `select "location_id", "on_hand", "reserved", "incoming" from "stock_level" where "product_id" = ? order by "location_id"`,
    ),
    applyLevel: prepared(
      dialect === 'postgresql'
        ? `${change}, "changed" as (${updateLevel}), "created" as (${createLevel})
          ${totals(' and exists (select 1 from "changed" union all select 1 from "created")')}`
        : `${change} ${updateLevel}`,
    ),
    createLevel: dialect === 'sqlite' ? prepared(`${change} ${createLevel}`) : undefined,
    applyTotals: prepared(totals('')),
  };
}

/**
 * An adjustment at once: the product first, where every AT_ONCE condition holds (so the product's lock is taken
 * before its level's, as lock then apply take them), moving its stock and version as `applyLevel` would and leaving
 * the movement's context for the ledger trigger; then the level, reading the product's new row. A level that was
 * removed since the guard read it (its location was deleted) must not leave the product changed: the statement then
 * writes a level its reserved check refuses, so all of it rolls back, as when the level read was stale.
 * Parameters: product, location, delta, hysteresis, write context.
 */
function adjustAtOnceSql(columns: string): string {
  const after = `(cast("quantity_in_stock" as bigint) - "reserved_quantity" - "backordered_quantity" + "adjustment"."delta")`;
  return `with "adjustment" ("product_id", "location_id", "delta", "hysteresis") as (values (?::integer, ?::integer, ?::integer, ?::integer)),
    "adjusted" as (
      update "product" set "quantity_in_stock" = "quantity_in_stock" + "adjustment"."delta", "write_context" = ?, "version" = "version" + 1
      from "adjustment"
      where "id" = "adjustment"."product_id" and ${AT_ONCE.level} and ${AT_ONCE.total} and ${AT_ONCE.noFills}
        and ${AT_ONCE.steady(after, '"low_stock_threshold"', '"adjustment"."hysteresis"')}
      returning ${columns}
    ),
    "level" as (
      update "stock_level" set "on_hand" = "stock_level"."on_hand" + "adjustment"."delta"
      from "adjusted", "adjustment"
      where "stock_level"."product_id" = "adjusted"."id" and "stock_level"."location_id" = "adjustment"."location_id"
      returning 1
    ),
    "gone" as (
      insert into "stock_level" ("product_id", "location_id", "on_hand", "reserved")
      select "adjusted"."id", "adjustment"."location_id", 0, 1 from "adjusted", "adjustment" where not exists (select 1 from "level")
    )
    select ${columns} from "adjusted"`;
}

/**
 * A PUT at once: the details, and the stock at the default location when it changes (AT_ONCE's conditions, with the
 * new threshold), the version moving by 1, or 2 when the stock changes (updateDetails, then apply). Only while the
 * product is at the version the statement's snapshot read ("before"): every change to a level moves its product's
 * version in the same transaction, so the levels the conditions read are the levels as they are, and the default
 * level moves by the new stock less the old. Parameters: product, new stock, threshold (null: unchanged),
 * hysteresis, name, description, price, backorder limit (null: unchanged), write context, expected version.
 * Answers the product, and its stock before ("stock_before": whether the ledger got a movement).
 */
function replaceAtOnceSql(columns: string, price: string, versioned: boolean): string {
  const threshold = 'coalesce("replacement"."threshold", "low_stock_threshold")';
  const after = `(cast("replacement"."quantity" as bigint) - "reserved_quantity" - "backordered_quantity")`;
  return `with "replacement" ("product_id", "quantity", "threshold", "hysteresis") as (values (?::integer, ?::integer, ?::integer, ?::integer)),
    "before" as (select "quantity_in_stock", "version" from "product", "replacement" where "id" = "replacement"."product_id"),
    "replaced" as (
      update "product" set "name" = ?, "description" = ?, "${price}" = ?, "backorder_limit" = coalesce(?, "backorder_limit"),
        "low_stock_threshold" = ${threshold}, "quantity_in_stock" = "replacement"."quantity", "write_context" = ?,
        "version" = "version" + case when "quantity_in_stock" = "replacement"."quantity" then 1 else 2 end
      from "replacement"
      where "id" = "replacement"."product_id"${versioned ? ' and "version" = ?' : ''} and "version" = (select "version" from "before")
        and ("quantity_in_stock" = "replacement"."quantity" or (${AT_ONCE.alone} and ${AT_ONCE.covered} and ${AT_ONCE.steady(after, threshold, '"replacement"."hysteresis"')}))
      returning ${columns}
    ),
    "level" as (
      update "stock_level" set "on_hand" = "stock_level"."on_hand" + "replacement"."quantity" - "before"."quantity_in_stock"
      from "replaced", "replacement", "before"
      where "stock_level"."product_id" = "replaced"."id" and "stock_level"."location_id" = ${DEFAULT_LOCATION_ID} and "before"."quantity_in_stock" <> "replacement"."quantity"
    )
    select ${columns}, (select "quantity_in_stock" from "before") as "stock_before" from "replaced"`;
}

/**
 * A conditional write and, when it is refused, the row as it stands, so the
 * caller learns why. On PostgreSQL one statement does both: the write in a
 * data-modifying CTE, the current row read from the same snapshot (its id is
 * the last parameter). On SQLite the write answers its row itself, and a
 * refused one is read right after.
 */
function conditionalWrite(dialect: Dialect, write: string, columns: string): string {
  if (dialect === 'sqlite') return `${write} returning true as "written", ${columns}`;
  return `with "written" as (${write} returning ${columns})
    select true as "written", ${columns} from "written"
    union all
    select false, ${columns} from "product" where "id" = ? and not exists (select 1 from "written")`;
}

const cache = new Map<Dialect, ProductStatements>();

/** The statements of one dialect, built once: each text keeps one prepared name for the life of the process. */
export function productStatements(dialect: Dialect): ProductStatements {
  let sql = cache.get(dialect);
  if (!sql) cache.set(dialect, (sql = statements(dialect)));
  return sql;
}
