import { EntitySchema } from '@mikro-orm/core';
import { type Dialect, type Query, query, type Row, type SqlSession } from '@platform/persistence';
import {
  AVAILABLE,
  type Money,
  Product,
  ProductDetails,
  type ProductName,
  STOCK_STATE,
  type StockState,
} from '@stock/domain';
import { renderCondition, renderTerm } from '../stock/render-condition';
import { identity, MONEY_COLUMN } from './columns';

/**
 * The product table: its mapping (the one description the migrations are
 * generated from and the drift test compares), its row, and the statements
 * that read and write it alone. Its stock totals, alert, ledger sequence and
 * version are written with its levels (../stock/product-stock-statements.ts).
 */

/** A product as a database row; the repository turns it into the domain's Product. */
export interface ProductRow {
  id: number;
  name: string;
  description: string;
  price: Money;
  quantityInStock: number;
  reservedQuantity: number;
  committedQuantity: number;
  qualityControlQuantity: number;
  damagedQuantity: number;
  backorderLimit: number;
  backorderedQuantity: number;
  lowStockThreshold: number;
  lowStockAlert: boolean;
  sku: string | null;
  /** The sequence of the product's latest movement: every change of its stock moves it, with its movements. */
  movementSequence: number;
  version: number;
}

/** The product's columns as the rules name them (@stock/domain's ProductName). */
export const PRODUCT_NAMES: Readonly<Record<ProductName, string>> = {
  quantityInStock: '"quantity_in_stock"',
  reservedQuantity: '"reserved_quantity"',
  committedQuantity: '"committed_quantity"',
  qualityControlQuantity: '"quality_control_quantity"',
  damagedQuantity: '"damaged_quantity"',
  backorderedQuantity: '"backordered_quantity"',
  lowStockThreshold: '"low_stock_threshold"',
};

/**
 * Product.availableQuantity (AVAILABLE) as SQL, written exactly as the expression indexes write it: a planner uses an
 * expression index only for the same expression.
 */
export const AVAILABLE_SQL = renderTerm(AVAILABLE, PRODUCT_NAMES);

/** Product.stockState (STOCK_STATE) as one expression, indexed with the id so a state's products page by id. */
export const STOCK_STATE_SQL = (() => {
  const state = { available: AVAILABLE_SQL, lowStockThreshold: PRODUCT_NAMES.lowStockThreshold };
  return `(case when ${renderCondition(STOCK_STATE.out, state)} then 'out' when ${renderCondition(STOCK_STATE.low, state)} then 'low' else 'in' end)`;
})();

/** The product's stock settings and backorders are never negative (the same checks on both databases). */
const SETTING_CHECKS = [
  { name: 'product_backorder_limit_check', expression: '"backorder_limit" >= 0' },
  { name: 'product_backordered_quantity_check', expression: '"backordered_quantity" >= 0' },
  { name: 'product_low_stock_threshold_check', expression: '"low_stock_threshold" >= 0' },
];

/**
 * The catalogue's indexes: SKUs unique ignoring case, one btree per sort with the id as tie-breaker (descending sorts
 * keep the id ascending), the stock state with the id, and on PostgreSQL pg_trgm's GIN index on each text column
 * (SQLite's is the FTS5 table "product_search", which no mapping can describe: its migration makes it). Expression
 * indexes: MikroORM compares them by name only. The expressions are the queries', word for word, as a planner needs.
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
    index('product_available_id_index', `${AVAILABLE_SQL}, "id"`),
    index('product_available_desc_id_index', `${AVAILABLE_SQL} desc, "id"`),
    index('product_stock_state_id_index', `${STOCK_STATE_SQL}, "id"`),
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
 * The product table's mapping, per dialect (each keeps money in its own exact column): no decorators on domain
 * classes. Its checks are the bounds the aggregate keeps, declared once as the database's safety net.
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
    // MikroORM 7 reads check constraints back on both databases (on SQLite named after their column).
    checks:
      dialect === 'postgresql'
        ? [
            { name: 'product_price_check', expression: `"${price}" >= 0` },
            { name: 'product_quantity_in_stock_check', expression: '"quantity_in_stock" >= 0' },
            {
              name: 'product_set_aside_check',
              expression:
                '"reserved_quantity" >= 0 and "committed_quantity" >= 0 and "quality_control_quantity" >= 0 and "damaged_quantity" >= 0 and "reserved_quantity" + "committed_quantity" + "quality_control_quantity" + "damaged_quantity" <= "quantity_in_stock"',
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
      id: identity(dialect),
      name: { type: 'string', length: 200 },
      description: { type: 'string', length: 2000, default: '' },
      price: { type: MONEY_COLUMN[dialect].type, fieldName: MONEY_COLUMN[dialect].name },
      quantityInStock: { type: 'integer', fieldName: 'quantity_in_stock', default: 0 },
      reservedQuantity: { type: 'integer', fieldName: 'reserved_quantity', default: 0 },
      committedQuantity: { type: 'integer', fieldName: 'committed_quantity', default: 0 },
      qualityControlQuantity: { type: 'integer', fieldName: 'quality_control_quantity', default: 0 },
      damagedQuantity: { type: 'integer', fieldName: 'damaged_quantity', default: 0 },
      backorderLimit: { type: 'integer', fieldName: 'backorder_limit', default: 0 },
      backorderedQuantity: { type: 'integer', fieldName: 'backordered_quantity', default: 0 },
      lowStockThreshold: { type: 'integer', fieldName: 'low_stock_threshold', default: 0 },
      lowStockAlert: { type: 'boolean', fieldName: 'low_stock_alert', default: false },
      sku: { type: 'string', length: 64, nullable: true },
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

/** A product row as the statements answer it (productColumns). */
export interface ProductDbRow extends Row {
  id: number;
  name: string;
  description: string;
  price?: string;
  price_cents?: number;
  quantity_in_stock: number;
  reserved_quantity: number;
  committed_quantity: number;
  quality_control_quantity: number;
  damaged_quantity: number;
  backorder_limit: number;
  backordered_quantity: number;
  low_stock_threshold: number;
  low_stock_alert: boolean | number;
  sku: string | null;
  version: number;
}

/** The product columns every read and write answers, for one dialect (each keeps money in its own column). */
export function productColumns(dialect: Dialect, table?: string): string {
  const columns = [
    'id',
    'name',
    'description',
    MONEY_COLUMN[dialect].name,
    'quantity_in_stock',
    'reserved_quantity',
    'committed_quantity',
    'quality_control_quantity',
    'damaged_quantity',
    'backorder_limit',
    'backordered_quantity',
    'low_stock_threshold',
    'low_stock_alert',
    'sku',
    'version',
  ];
  return columns.map((column) => (table ? `"${table}"."${column}"` : `"${column}"`)).join(', ');
}

/** A product row as the domain's Product; SQLite answers the alert as 0 or 1. */
export function toProduct(session: SqlSession, row: Row): Product {
  const money = MONEY_COLUMN[session.dialect];
  const details = ProductDetails.restore({
    name: String(row.name),
    description: String(row.description),
    price: money.type.convertToJSValue(row[money.name] as never, session.platform),
    quantityInStock: Number(row.quantity_in_stock),
    backorderLimit: Number(row.backorder_limit),
    lowStockThreshold: Number(row.low_stock_threshold),
    sku: row.sku == null ? null : (row.sku as string),
  });
  return Product.of(Number(row.id), details, Number(row.version), Number(row.reserved_quantity), {
    committedQuantity: Number(row.committed_quantity),
    qualityControlQuantity: Number(row.quality_control_quantity),
    damagedQuantity: Number(row.damaged_quantity),
    backorderedQuantity: Number(row.backordered_quantity),
    lowStockAlert: row.low_stock_alert === true || Number(row.low_stock_alert) === 1,
  });
}

type Price = string | number;

/** The product table's own statements for one dialect, each text prepared once. */
export interface ProductStatements {
  readonly columns: string;
  readonly findById: Query<[id: number], ProductDbRow>;
  /** The product with a SKU, ignoring case: the unique index on lower("sku") answers it. */
  readonly findBySku: Query<[sku: string], ProductDbRow>;
  /** A page in id order, in a stock state when asked. */
  list(stockState?: StockState): Query<[after: number, limit: number], ProductDbRow>;
  /**
   * Name, description, price and the settings given (null: kept; the SKU kept when `keepSku` is 1), moving the
   * product to its next version; at a version when versioned. Answers the written row, or the refused one as it
   * stands (`written` false), or nothing when the product is missing.
   */
  updateDetails(versioned: boolean): Query<unknown[], ProductDbRow & { written: boolean | number }>;
  /** The product at `version`, gone with its levels (their foreign key cascades); its ledger stays. */
  readonly remove: Query<[id: number, version: number]>;
  /** The product row with its ledger sequence, locked until the transaction ends (SQLite's writers take turns). */
  readonly lock: Query<[id: number], ProductDbRow & { movement_sequence: number }>;
}

function statements(dialect: Dialect): ProductStatements {
  const price = MONEY_COLUMN[dialect].name;
  const columns = productColumns(dialect);
  const keepSku = dialect === 'postgresql' ? '?::integer = 1' : '? = 1';
  const updateDetails = (versioned: boolean) =>
    query<unknown[], ProductDbRow & { written: boolean | number }>(
      conditionalWrite(
        dialect,
        `update "product" set "name" = ?, "description" = ?, "${price}" = ?, "backorder_limit" = coalesce(?, "backorder_limit"), "low_stock_threshold" = coalesce(?, "low_stock_threshold"), "sku" = case when ${keepSku} then "sku" else ? end, "version" = "version" + 1 where "id" = ?${versioned ? ' and "version" = ?' : ''}`,
        columns,
      ),
    );
  const [unversioned, versioned] = [updateDetails(false), updateDetails(true)];
  const list = (where: string) =>
    query<[after: number, limit: number], ProductDbRow>(
      `select ${columns} from "product" where "id" > ?${where} order by "id" limit ?`,
    );
  const lists = {
    all: list(''),
    // The state's expression index (with the id) answers these.
    out: list(` and ${STOCK_STATE_SQL} = 'out'`),
    low: list(` and ${STOCK_STATE_SQL} = 'low'`),
    in: list(` and ${STOCK_STATE_SQL} = 'in'`),
  };
  return {
    columns,
    findById: query(`select ${columns} from "product" where "id" = ?`),
    findBySku: query(`select ${columns} from "product" where lower("sku") = lower(?)`),
    list: (stockState) => lists[stockState ?? 'all'],
    updateDetails: (isVersioned) => (isVersioned ? versioned : unversioned),
    remove: query(`delete from "product" where "id" = ? and "version" = ?`),
    lock: query(
      `select ${columns}, "movement_sequence" from "product" where "id" = ?${dialect === 'postgresql' ? ' for update' : ''}`,
    ),
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

/** A price as its dialect's column takes it. */
export function priceOf(session: SqlSession, price: Money): Price {
  return MONEY_COLUMN[session.dialect].type.convertToDatabaseValue(price, session.platform);
}
