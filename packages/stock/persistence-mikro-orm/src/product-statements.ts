import { type PreparedStatement, prepared } from '@platform/mikro-orm';
import { DEFAULT_LOCATION_ID, STOCK_MAX, type StockState } from '@stock/domain';
import { productColumns } from './product-rows';
import { MONEY_COLUMN } from './product-schema';

type Dialect = 'postgresql' | 'sqlite';

/**
 * The stock rules of @stock/domain as the conditions of the conditional
 * writes: the atomic guard, checked and written under the row's lock. A plan
 * made with the rules of stock-levels.ts never trips them; one made from a
 * stale read does, and the write is refused instead of overselling.
 */
export const GUARD = {
  /**
   * A level after a change (the upsert's conflict branch): 0 ≤ reserved ≤ on hand, incoming ≥ 0. A level the change
   * creates is held to the same by the table's checks.
   */
  level: `"stock_level"."reserved" + excluded."reserved" >= 0 and "stock_level"."reserved" + excluded."reserved" <= "stock_level"."on_hand" + excluded."on_hand" and "stock_level"."incoming" + excluded."incoming" >= 0`,
  /** The product after a change: its stock (+ ?) at most STOCK_MAX, summed as a bigint; its backorders (+ ?) ≥ 0. */
  totals: `cast("quantity_in_stock" as bigint) + ? <= ${STOCK_MAX} and "backordered_quantity" + ? >= 0`,
  /** productRemovalBlocked: nothing held, backordered or incoming (the product's id is the parameter). */
  remove: `"reserved_quantity" = 0 and "backordered_quantity" = 0 and not exists (select 1 from "stock_level" where "product_id" = ? and "incoming" > 0)`,
} as const;

/** Product.stockState in SQL, of available = in stock − reserved − backordered (stockStateOf). */
const AVAILABLE = '("quantity_in_stock" - "reserved_quantity" - "backordered_quantity")';
const STOCK_STATE: Record<StockState, string> = {
  out: `${AVAILABLE} <= 0`,
  low: `${AVAILABLE} > 0 and ${AVAILABLE} < "low_stock_threshold"`,
  in: `${AVAILABLE} > 0 and ${AVAILABLE} >= "low_stock_threshold"`,
};

/**
 * The fixed statements of the product and stock-level repositories for one
 * dialect; the bench's raw baselines send the same ones. A GET sends
 * `findById`, a page `list`, a POST `insert` (SQLite: and `insertLevel`), a
 * PUT `lock`, `levels`, `updateDetails` and, when the stock changes, the
 * change's `applyLevel` (SQLite: and `applyTotals`), and an adjustment `lock`,
 * `levels` and `applyLevel` (SQLite: and `applyTotals`), both in a
 * transaction.
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
  /** A page in id order, in a stock state when asked. */
  list(stockState?: StockState): PreparedStatement;
  updateDetails(versioned: boolean): PreparedStatement;
  readonly remove: PreparedStatement;
  /** The product row, locked until the transaction ends (PostgreSQL: `for update`; SQLite's writers take turns). */
  readonly lock: PreparedStatement;
  /** Its levels, read after the lock (a statement of their own, so READ COMMITTED reads them as they are now). */
  readonly levels: PreparedStatement;
  /**
   * One level change: the level's guarded upsert; on PostgreSQL with the product's totals in the same statement
   * (answering the product, or nothing when a guard refused).
   */
  readonly applyLevel: PreparedStatement;
  /**
   * The product's totals and state after a change, guarded: SQLite's second statement of a change, and a change of
   * the product alone.
   */
  readonly applyTotals: PreparedStatement;
}

function statements(dialect: Dialect): ProductStatements {
  const price = MONEY_COLUMN[dialect].name;
  const columns = productColumns(dialect);
  const conditional = (write: string) => prepared(conditionalWrite(dialect, write, columns));
  const insertProduct = `insert into "product" ("name", "description", "${price}", "quantity_in_stock", "reserved_quantity", "backorder_limit", "low_stock_threshold", "write_context", "version") values (?, ?, ?, ?, 0, ?, ?, ?, 1) returning ${columns}`;
  const updateDetails = (versioned: boolean) =>
    conditional(
      `update "product" set "name" = ?, "description" = ?, "${price}" = ?, "backorder_limit" = coalesce(?, "backorder_limit"), "low_stock_threshold" = coalesce(?, "low_stock_threshold"), "version" = "version" + 1 where "id" = ?${versioned ? ' and "version" = ?' : ''}`,
    );
  const [unversioned, versioned] = [updateDetails(false), updateDetails(true)];
  const list = (where: string) =>
    prepared(`select ${columns} from "product" where "id" > ?${where} order by "id" limit ?`);
  const lists = {
    all: list(''),
    out: list(` and ${STOCK_STATE.out}`),
    low: list(` and ${STOCK_STATE.low}`),
    in: list(` and ${STOCK_STATE.in}`),
  };
  const upsertLevel = `insert into "stock_level" ("product_id", "location_id", "on_hand", "reserved", "incoming") values (?, ?, ?, ?, ?)
    on conflict ("product_id", "location_id") do update set "on_hand" = "stock_level"."on_hand" + excluded."on_hand", "reserved" = "stock_level"."reserved" + excluded."reserved", "incoming" = "stock_level"."incoming" + excluded."incoming"
    where ${GUARD.level}`;
  const totals = (where: string) =>
    `update "product" set "quantity_in_stock" = "quantity_in_stock" + ?, "reserved_quantity" = "reserved_quantity" + ?, "backordered_quantity" = "backordered_quantity" + ?, "low_stock_alert" = coalesce(?, "low_stock_alert"), "write_context" = ?, "version" = "version" + ? where "id" = ?${where} and ${GUARD.totals} returning ${columns}`;
  return {
    columns,
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
    list: (stockState) => lists[stockState ?? 'all'],
    updateDetails: (isVersioned) => (isVersioned ? versioned : unversioned),
    remove: conditional(`delete from "product" where "id" = ? and ${GUARD.remove}`),
    lock: prepared(`select ${columns} from "product" where "id" = ?${dialect === 'postgresql' ? ' for update' : ''}`),
    levels: prepared(
      `select "location_id", "on_hand", "reserved", "incoming" from "stock_level" where "product_id" = ? order by "location_id"`,
    ),
    applyLevel: prepared(
      dialect === 'postgresql'
        ? `with "level" as (${upsertLevel} returning "product_id") ${totals(' and exists (select 1 from "level")')}`
        : `${upsertLevel} returning "product_id"`,
    ),
    applyTotals: prepared(totals('')),
  };
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
