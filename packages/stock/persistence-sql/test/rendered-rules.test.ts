import type { Database } from '@platform/persistence';
import { scratchUrl } from '@platform/test-kit';
import * as domain from '@stock/domain';
import {
  ARRIVAL_FILLS,
  AVAILABLE,
  type Condition,
  COVERS_HOLDS,
  evaluate,
  holds,
  INT32_MAX,
  KEEPS_HOLDS,
  LEVEL_AVAILABLE,
  LEVEL_HAS_AVAILABLE,
  LEVEL_IS_EMPTY,
  LOW_STOCK,
  LOW_STOCK_STEADY,
  MOVES_STOCK,
  namesOf,
  not,
  plus,
  STOCK_STATE,
  stockStateOf,
  type Term,
  value,
  type Values,
  WITHIN_STOCK_MAX,
} from '@stock/domain';
import { expect } from 'chai';
import {
  ADJUST_AT_ONCE_ROUTINE,
  AVAILABLE_SQL,
  type Columns,
  openStockDatabase,
  PRODUCT_NAMES,
  REPLACE_AT_ONCE,
  type RenderOptions,
  renderCondition,
  renderTerm,
  STOCK_STATE_SQL,
} from '../src';
import { STOCK_MIGRATIONS } from '../src/migrations';
import type { CatalogueSearch as PostgresqlCatalogueSearch } from '../src/migrations/history/postgresql';
import { productSchema } from '../src/tables/product';
import { levelHasAvailable, levelIsEmpty, levelNames } from '../src/tables/stock-level';

/**
 * The rules of @stock/domain's rules.ts are written once, as data: the
 * ProductStock aggregate evaluates them (`holds`, `evaluate`), and the
 * statements that decide in SQL render them (render-condition.ts). Here each
 * rendering runs on the real SQLite and PostgreSQL, every name a bound value
 * of the type the statements give it, over a table of rows at each of the
 * rule's boundaries, and must answer what the aggregate answers, row by row.
 */

const MAX = INT32_MAX;
const INT32_MIN = -INT32_MAX - 1;

type Scalar = number | boolean;
/** A row of a table: what boundary it stands at, then its values in the table's order of names. */
type Row = readonly [boundary: string, ...values: Scalar[]];

/** Rows of values, each at a boundary of the rules that read them. */
interface Rows<Name extends string> {
  readonly names: readonly Name[];
  /** Names that the statements bind as bigint (an expression of widened columns); the others are int4 columns. */
  readonly bigint?: readonly Name[];
  readonly rows: readonly Row[];
}

/** A rule and the ways the statements render it, each run over the rows. */
interface RuleTable {
  readonly title: string;
  readonly rule: Condition<string> | Term<string>;
  /** As the statements render it: `bigint` where a sum of int4 columns could overflow int4. */
  readonly rendered: readonly RenderOptions[];
  readonly table: Rows<string>;
}

const WIDE: RenderOptions = { bigint: true };
const EXACT: RenderOptions = {};

/**
 * A product's totals, inside the product table's checks (every set-aside state ≥ 0, together within stock ≤
 * INT32_MAX; backorders and threshold ≥ 0): available and the stock state at each boundary, and at the extremes where
 * no sum overflows int4.
 */
const PRODUCT: Rows<domain.ProductName> = {
  names: [
    'quantityInStock',
    'reservedQuantity',
    'committedQuantity',
    'qualityControlQuantity',
    'damagedQuantity',
    'backorderedQuantity',
    'lowStockThreshold',
  ],
  rows: [
    ['nothing at all', 0, 0, 0, 0, 0, 0, 0],
    ['one available, no threshold', 1, 0, 0, 0, 0, 0, 0],
    ['all held', 5, 5, 0, 0, 0, 0, 0],
    ['one not held', 5, 4, 0, 0, 0, 0, 0],
    ['one not held, a backorder waits for it', 5, 4, 0, 0, 0, 1, 0],
    ['backorders wait past the stock', 5, 4, 0, 0, 0, 3, 0],
    ['all committed', 5, 0, 5, 0, 0, 0, 0],
    ['all in quality control', 5, 0, 0, 5, 0, 0, 0],
    ['all damaged', 5, 0, 0, 0, 5, 0, 0],
    ['all set aside, one in each state and two held', 5, 2, 1, 1, 1, 0, 0],
    ['one in no state', 5, 1, 1, 1, 1, 0, 0],
    ['available at the threshold', 10, 2, 0, 0, 0, 3, 5],
    ['available one below the threshold', 10, 2, 0, 0, 0, 4, 5],
    ['available one above the threshold', 10, 2, 0, 0, 0, 2, 5],
    ['available at the threshold, every state set aside', 14, 1, 1, 1, 1, 5, 5],
    ['available one below the threshold, every state set aside', 14, 1, 2, 1, 1, 5, 5],
    ['threshold 1, one available', 1, 0, 0, 0, 0, 0, 1],
    ['threshold 1, none available', 1, 1, 0, 0, 0, 0, 1],
    ['threshold 1, the one committed', 1, 0, 1, 0, 0, 0, 1],
    ['INT32_MAX in stock', MAX, 0, 0, 0, 0, 0, 0],
    ['INT32_MAX in stock, threshold INT32_MAX', MAX, 0, 0, 0, 0, 0, MAX],
    ['INT32_MAX in stock, one held, threshold INT32_MAX', MAX, 1, 0, 0, 0, 0, MAX],
    ['INT32_MAX in stock, all held', MAX, MAX, 0, 0, 0, 0, 0],
    ['INT32_MAX in stock, all damaged', MAX, 0, 0, 0, MAX, 0, 0],
    ['INT32_MAX in stock, set aside in four parts', MAX, MAX - 3, 1, 1, 1, 0, 0],
    ['nothing in stock, INT32_MAX backordered', 0, 0, 0, 0, 0, MAX, 0],
    ['INT32_MAX in stock, INT32_MAX backordered', MAX, 0, 0, 0, 0, MAX, 1],
    ['INT32_MAX in stock, one less backordered', MAX, 0, 0, 0, 0, MAX - 1, 1],
    ['INT32_MAX in stock, all committed, INT32_MAX backordered', MAX, 0, MAX, 0, 0, MAX, 1],
  ],
};

/** A level, inside its checks (every state ≥ 0, the set-aside ones together within on hand) but for the last rows. */
const LEVEL: Rows<domain.LevelName> = {
  names: ['onHand', 'reserved', 'committed', 'qualityControl', 'damaged', 'incoming'],
  rows: [
    ['empty', 0, 0, 0, 0, 0, 0],
    ['one on hand', 1, 0, 0, 0, 0, 0],
    ['one on hand, held', 1, 1, 0, 0, 0, 0],
    ['one on hand, committed', 1, 0, 1, 0, 0, 0],
    ['one on hand, in quality control', 1, 0, 0, 1, 0, 0],
    ['one on hand, damaged', 1, 0, 0, 0, 1, 0],
    ['two on hand, one held', 2, 1, 0, 0, 0, 0],
    ['five on hand, one in each state', 5, 1, 1, 1, 1, 0],
    ['four on hand, one in each state', 4, 1, 1, 1, 1, 0],
    ['one on its way', 0, 0, 0, 0, 0, 1],
    ['INT32_MAX on hand', MAX, 0, 0, 0, 0, 0],
    ['INT32_MAX on hand, all held', MAX, MAX, 0, 0, 0, 0],
    ['INT32_MAX on hand, one not held', MAX, MAX - 1, 0, 0, 0, 0],
    ['INT32_MAX on hand, all committed', MAX, 0, MAX, 0, 0, 0],
    ['INT32_MAX on hand, all set aside in four parts', MAX, MAX - 3, 1, 1, 1, 0],
    ['INT32_MAX on its way', 0, 0, 0, 0, 0, MAX],
    // Outside the level's checks, so that each of LEVEL_IS_EMPTY's equalities is seen failing alone.
    ['a hold and nothing on hand', 0, 1, 0, 0, 0, 0],
    ['a unit committed and nothing on hand', 0, 0, 1, 0, 0, 0],
    ['a unit in quality control and nothing on hand', 0, 0, 0, 1, 0, 0],
    ['a damaged unit and nothing on hand', 0, 0, 0, 0, 1, 0],
  ],
};

/** An adjustment of a level (ADJUST_AT_ONCE reads them as the product's lock finds them). */
const LEVEL_DELTA: Rows<'onHand' | 'reserved' | 'committed' | 'qualityControl' | 'damaged' | 'delta'> = {
  names: ['onHand', 'reserved', 'committed', 'qualityControl', 'damaged', 'delta'],
  rows: [
    ['down to exactly the holds', 10, 4, 0, 0, 0, -6],
    ['one past the holds', 10, 4, 0, 0, 0, -7],
    ['one short of the holds', 10, 4, 0, 0, 0, -5],
    ['down to exactly what is committed', 10, 0, 4, 0, 0, -6],
    ['one past what is committed', 10, 0, 4, 0, 0, -7],
    ['down to exactly what is in quality control', 10, 0, 0, 4, 0, -6],
    ['one past quality control', 10, 0, 0, 4, 0, -7],
    ['down to exactly what is damaged', 10, 0, 0, 0, 4, -6],
    ['one past what is damaged', 10, 0, 0, 0, 4, -7],
    ['down to exactly every state set aside', 10, 1, 1, 1, 1, -6],
    ['one past every state set aside', 10, 1, 1, 1, 1, -7],
    ['no change', 10, 4, 0, 0, 0, 0],
    ['no change, all held', 4, 4, 0, 0, 0, 0],
    ['one out, all held', 4, 4, 0, 0, 0, -1],
    ['nothing held, down to 0', 5, 0, 0, 0, 0, -5],
    ['nothing held, one below 0', 5, 0, 0, 0, 0, -6],
    ['nothing at all', 0, 0, 0, 0, 0, 0],
    ['one arrives at nothing', 0, 0, 0, 0, 0, 1],
    ['INT32_MAX held, one arrives (past int4)', MAX, MAX, 0, 0, 0, 1],
    ['INT32_MAX set aside in four parts, one arrives (past int4)', MAX, MAX - 3, 1, 1, 1, 1],
    ['INT32_MAX on hand, INT32_MAX arrives (past int4)', MAX, 0, 0, 0, 0, MAX],
    ['INT32_MAX on hand, all of it out', MAX, 0, 0, 0, 0, -MAX],
    ['INT32_MAX held, INT32_MIN delta', MAX, MAX, 0, 0, 0, INT32_MIN],
    ['INT32_MAX committed, INT32_MIN delta', MAX, 0, MAX, 0, 0, INT32_MIN],
    ['nothing on hand, INT32_MIN delta', 0, 0, 0, 0, 0, INT32_MIN],
  ],
};

const STOCK_DELTA: Rows<'quantityInStock' | 'delta'> = {
  names: ['quantityInStock', 'delta'],
  rows: [
    ['up to exactly STOCK_MAX', MAX - 5, 5],
    ['one past STOCK_MAX (past int4)', MAX - 5, 6],
    ['one short of STOCK_MAX', MAX - 5, 4],
    ['at STOCK_MAX, no change', MAX, 0],
    ['at STOCK_MAX, one arrives (past int4)', MAX, 1],
    ['at STOCK_MAX, STOCK_MAX arrives (past int4)', MAX, MAX],
    ['at STOCK_MAX, one out', MAX, -1],
    ['nothing, STOCK_MAX arrives', 0, MAX],
    ['one, STOCK_MAX arrives (past int4)', 1, MAX],
    ['nothing, no change', 0, 0],
    ['nothing, INT32_MIN delta', 0, INT32_MIN],
  ],
};

const ARRIVAL: Rows<'delta' | 'backorderedQuantity'> = {
  names: ['delta', 'backorderedQuantity'],
  rows: [
    ['one arrives, one backordered', 1, 1],
    ['no change, one backordered', 0, 1],
    ['one out, one backordered', -1, 1],
    ['one arrives, none backordered', 1, 0],
    ['no change, none backordered', 0, 0],
    ['INT32_MAX arrives, INT32_MAX backordered', MAX, MAX],
    ['INT32_MIN delta, INT32_MAX backordered', INT32_MIN, MAX],
  ],
};

/** A change's deltas of on hand and each state: whether it moves stock. */
const DELTAS: Rows<domain.DeltaName> = {
  names: ['quantityDelta', 'reservedDelta', 'committedDelta', 'qualityControlDelta', 'damagedDelta'],
  rows: [
    ['nothing moves', 0, 0, 0, 0, 0],
    ['one arrives', 1, 0, 0, 0, 0],
    ['one leaves', -1, 0, 0, 0, 0],
    ['one held', 0, 1, 0, 0, 0],
    ['one released', 0, -1, 0, 0, 0],
    ['one committed to an order', 0, -1, 1, 0, 0],
    ['one committed at once', -1, -1, 0, 0, 0],
    ['one shipped', -1, 0, -1, 0, 0],
    ['one set aside for quality control', 0, 0, 0, 1, 0],
    ['one found damaged', 0, 0, 0, 0, 1],
    ['one damaged written off', -1, 0, 0, 0, -1],
    ['INT32_MIN out', INT32_MIN, 0, 0, 0, 0],
  ],
};

/** What a product has available (AVAILABLE, below 0 while backorders wait) against its threshold. */
const STATE: Rows<'available' | 'lowStockThreshold'> = {
  names: ['available', 'lowStockThreshold'],
  bigint: ['available'],
  rows: [
    ['nothing available, no threshold', 0, 0],
    ['one available, no threshold', 1, 0],
    ['backorders waiting, no threshold', -1, 0],
    ['at the threshold', 5, 5],
    ['one below the threshold', 4, 5],
    ['one above the threshold', 6, 5],
    ['none available, threshold 1', 0, 1],
    ['INT32_MAX available, threshold INT32_MAX', MAX, MAX],
    ['INT32_MAX backordered past the stock', -MAX, 1],
  ],
};

/** A PUT's new stock against what is set aside at the default location. */
const REPLACEMENT: Rows<'quantity' | 'reserved' | 'committed' | 'qualityControl' | 'damaged'> = {
  names: ['quantity', 'reserved', 'committed', 'qualityControl', 'damaged'],
  rows: [
    ['exactly what is held', 4, 4, 0, 0, 0],
    ['one short of what is held', 3, 4, 0, 0, 0],
    ['one more than is held', 5, 4, 0, 0, 0],
    ['exactly what every state sets aside', 4, 1, 1, 1, 1],
    ['one short of what every state sets aside', 3, 1, 1, 1, 1],
    ['one short of what is committed', 3, 0, 4, 0, 0],
    ['one short of quality control', 3, 0, 0, 4, 0],
    ['one short of what is damaged', 3, 0, 0, 0, 4],
    ['nothing, nothing held', 0, 0, 0, 0, 0],
    ['nothing, one held', 0, 1, 0, 0, 0],
    ['INT32_MAX, all held', MAX, MAX, 0, 0, 0],
    ['INT32_MAX, set aside in four parts', MAX, MAX - 3, 1, 1, 1],
    ['one short of INT32_MAX held', MAX - 1, MAX, 0, 0, 0],
    ['one short of INT32_MAX set aside in four parts (past int4)', MAX - 1, MAX - 3, 1, 1, 1],
  ],
};

/**
 * The low-stock crossing's inputs. `available` is what a change leaves available, in the statements an expression
 * of widened columns (AVAILABLE + delta), so it may pass int4 either way; threshold + hysteresis may too.
 */
const LOW_STOCK_ROWS: Rows<domain.LowStockName> = {
  names: ['available', 'lowStockThreshold', 'lowStockAlert', 'hysteresis'],
  bigint: ['available'],
  rows: [
    ['not alerted, at the threshold', 10, 10, false, 1],
    ['not alerted, one below the threshold', 9, 10, false, 1],
    ['not alerted, one above the threshold', 11, 10, false, 1],
    ['not alerted, threshold 0, backorders waiting', -1, 0, false, 1],
    ['not alerted, threshold 1, none available', 0, 1, false, 1],
    ['not alerted, backorders waiting', -5, 3, false, 1],
    ['not alerted, at threshold INT32_MAX', MAX, MAX, false, 1],
    ['not alerted, one below threshold INT32_MAX', MAX - 1, MAX, false, 1],
    ['not alerted, INT32_MIN below INT32_MAX backordered (past int4)', -MAX + INT32_MIN, 1, false, 1],
    ['alerted, at threshold + hysteresis', 11, 10, true, 1],
    ['alerted, one below threshold + hysteresis', 10, 10, true, 1],
    ['alerted, one above threshold + hysteresis', 12, 10, true, 1],
    ['alerted, below the threshold', 9, 10, true, 1],
    ['alerted, hysteresis 0, at the threshold', 10, 10, true, 0],
    ['alerted, hysteresis 0, one below the threshold', 9, 10, true, 0],
    ['alerted, threshold turned off', 5, 0, true, 1],
    ['alerted, threshold turned off, backorders waiting', -1, 0, true, 1],
    ['alerted, threshold 1, one available', 1, 1, true, 1],
    ['alerted, threshold INT32_MAX, INT32_MAX available (threshold + hysteresis past int4)', MAX, MAX, true, 1],
    ['alerted, threshold INT32_MAX, INT32_MAX + 1 available (past int4)', MAX + 1, MAX, true, 1],
    ['alerted, threshold + hysteresis = 2 × INT32_MAX, reached', 2 * MAX, MAX, true, MAX],
    ['alerted, threshold + hysteresis = 2 × INT32_MAX, one short', 2 * MAX - 1, MAX, true, MAX],
    ['alerted, INT32_MAX backordered', -MAX, 1, true, 1],
  ],
};

/** What a plain adjustment leaves available: the product's totals, and the delta (ADJUST_AT_ONCE). */
const AVAILABLE_AFTER: Rows<Exclude<domain.ProductName, 'lowStockThreshold'> | 'delta'> = {
  names: [
    'quantityInStock',
    'reservedQuantity',
    'committedQuantity',
    'qualityControlQuantity',
    'damagedQuantity',
    'backorderedQuantity',
    'delta',
  ],
  rows: [
    ['nothing, no change', 0, 0, 0, 0, 0, 0, 0],
    ['one arrives', 10, 4, 0, 0, 0, 3, 1],
    ['one arrives, every state set aside', 10, 1, 1, 1, 1, 3, 1],
    ['all out', 10, 4, 0, 0, 0, 3, -6],
    ['INT32_MAX in stock, one arrives (past int4)', MAX, 0, 0, 0, 0, 0, 1],
    ['INT32_MAX in stock, all committed, one arrives', MAX, 0, MAX, 0, 0, 0, 1],
    ['INT32_MAX in stock, INT32_MAX arrives (past int4)', MAX, 0, 0, 0, 0, 0, MAX],
    ['INT32_MAX backordered, INT32_MIN delta (below int4)', 0, 0, 0, 0, 0, MAX, INT32_MIN],
  ],
};

/** Every Condition and Term rules.ts exports, each with the renderings the statements make of it. */
const RULES: readonly RuleTable[] = [
  // AVAILABLE_SQL (search's sort, its expression indexes) exactly; the PUT at once (REPLACE_AT_ONCE) widened.
  { title: 'AVAILABLE', rule: AVAILABLE, rendered: [EXACT, WIDE], table: PRODUCT },
  // STOCK_STATE_SQL: the state filter and its expression index.
  { title: 'STOCK_STATE.out', rule: STOCK_STATE.out, rendered: [EXACT], table: STATE },
  { title: 'STOCK_STATE.low', rule: STOCK_STATE.low, rendered: [EXACT], table: STATE },
  // levelIsEmpty (a location's removal, the PUT at once), levelHasAvailable (search by location).
  // What a level has available: rendered inside LEVEL_HAS_AVAILABLE, and widened inside KEEPS_HOLDS' sums.
  { title: 'LEVEL_AVAILABLE', rule: LEVEL_AVAILABLE, rendered: [EXACT, WIDE], table: LEVEL },
  { title: 'LEVEL_IS_EMPTY', rule: LEVEL_IS_EMPTY, rendered: [EXACT], table: LEVEL },
  { title: 'LEVEL_HAS_AVAILABLE', rule: LEVEL_HAS_AVAILABLE, rendered: [EXACT], table: LEVEL },
  // ADJUST_AT_ONCE.
  { title: 'MOVES_STOCK', rule: MOVES_STOCK, rendered: [EXACT], table: DELTAS },
  { title: 'KEEPS_HOLDS', rule: KEEPS_HOLDS, rendered: [WIDE], table: LEVEL_DELTA },
  { title: 'WITHIN_STOCK_MAX', rule: WITHIN_STOCK_MAX, rendered: [WIDE], table: STOCK_DELTA },
  { title: 'ARRIVAL_FILLS', rule: ARRIVAL_FILLS, rendered: [WIDE], table: ARRIVAL },
  // REPLACE_AT_ONCE.
  { title: 'COVERS_HOLDS', rule: COVERS_HOLDS, rendered: [WIDE], table: REPLACEMENT },
  // Both at once, at what the change leaves available.
  { title: 'LOW_STOCK.turnsLow', rule: LOW_STOCK.turnsLow, rendered: [WIDE], table: LOW_STOCK_ROWS },
  { title: 'LOW_STOCK.restores', rule: LOW_STOCK.restores, rendered: [WIDE], table: LOW_STOCK_ROWS },
  { title: 'LOW_STOCK.clearsQuietly', rule: LOW_STOCK.clearsQuietly, rendered: [WIDE], table: LOW_STOCK_ROWS },
  { title: 'LOW_STOCK_STEADY', rule: LOW_STOCK_STEADY, rendered: [WIDE], table: LOW_STOCK_ROWS },
];

/** What the statements compose of the rules (not exports of rules.ts themselves). */
const COMPOSED: readonly RuleTable[] = [
  {
    title: "AVAILABLE + delta (ADJUST_AT_ONCE's available after)",
    rule: plus(AVAILABLE, value('delta')),
    rendered: [WIDE],
    table: AVAILABLE_AFTER,
  },
  {
    title: 'not ARRIVAL_FILLS (ADJUST_AT_ONCE)',
    rule: not(ARRIVAL_FILLS),
    rendered: [WIDE],
    table: ARRIVAL,
  },
];

const CONDITION_KINDS = new Set(['compare', 'flag', 'all', 'any', 'not']);
const TERM_KINDS = new Set(['value', 'constant', 'sum']);

function isCondition(rule: Condition<string> | Term<string>): rule is Condition<string> {
  return CONDITION_KINDS.has(rule.kind);
}

/** The names a rule reads. */
function namesRead(rule: Condition<string> | Term<string>): string[] {
  return namesOf(isCondition(rule) ? rule : { kind: 'compare', op: '=', left: rule, right: rule });
}

/**
 * Every Condition and Term a module exports, by where it is found (`LOW_STOCK.turnsLow`): its exports, and the
 * plain objects and arrays among them, walked down to the first rule.
 */
function exportedRules(module: Record<string, unknown>): Map<object, string> {
  const found = new Map<object, string>();
  const seen = new Set<object>();
  const visit = (each: unknown, path: string): void => {
    if (typeof each !== 'object' || each === null || seen.has(each)) return;
    seen.add(each);
    const kind = (each as { kind?: unknown }).kind;
    if (typeof kind === 'string' && (CONDITION_KINDS.has(kind) || TERM_KINDS.has(kind))) {
      found.set(each, path);
      return;
    }
    const prototype: unknown = Object.getPrototypeOf(each);
    if (prototype !== Object.prototype && prototype !== null && !Array.isArray(each)) return;
    for (const [key, child] of Object.entries(each)) visit(child, `${path}.${key}`);
  };
  for (const [name, each] of Object.entries(module)) visit(each, name);
  return found;
}

/** The values of a row by name. */
function valuesOf(table: Rows<string>, row: Row): Values<string> {
  return Object.fromEntries(table.names.map((name, index) => [name, row[index + 1] as Scalar]));
}

/** A row's value bound as the statements bind it: an int4 column, a bigint expression, a boolean column. */
function bound(database: Database, table: Rows<string>, name: string): string {
  const flag = table.rows.some((row) => typeof row[table.names.indexOf(name) + 1] === 'boolean');
  if (database.session.dialect === 'sqlite') return flag ? '?' : 'cast(? as integer)';
  return flag ? 'cast(? as boolean)' : table.bigint?.includes(name) ? 'cast(? as bigint)' : 'cast(? as integer)';
}

/** What a row answered that the aggregate does not. */
interface Disagreement {
  readonly row: string;
  readonly aggregate: Scalar | string;
  readonly database: Scalar | string;
}

/**
 * Runs `expression` over each row of `table` on `database`, its names read from a row of bound values (`alias`
 * names the row, `column` each name's column in it), and answers every row where it says other than `expected`.
 */
async function disagreements(
  database: Database,
  table: Rows<string>,
  expression: string,
  expected: (values: Values<string>) => Scalar | string,
  { alias = 'v', column = (name: string) => `"${name}"` }: { alias?: string; column?: (name: string) => string } = {},
): Promise<Disagreement[]> {
  const row = table.names.map((name) => `${bound(database, table, name)} as ${column(name)}`).join(', ');
  const sql = `select ${expression} as "answer" from (select ${row}) as "${alias}"`;
  const found: Disagreement[] = [];
  for (const each of table.rows) {
    const [boundary, ...values] = each;
    const aggregate = expected(valuesOf(table, each));
    let answer: Scalar | string;
    try {
      const [result] = await database.session.all(sql, values);
      const raw = result!.answer;
      answer =
        typeof aggregate === 'boolean' ? Number(raw) === 1 : typeof aggregate === 'number' ? Number(raw) : String(raw);
    } catch (error) {
      answer = `error: ${(error as Error).message}`;
    }
    if (answer !== aggregate) found.push({ row: `${boundary} (${values.join(', ')})`, aggregate, database: answer });
  }
  return found;
}

/** A rule rendered (by `render`, the rule's own rendering unless told otherwise) against what the aggregate says. */
function ruleDisagreements(
  database: Database,
  { rule, table }: RuleTable,
  options: RenderOptions,
  render: (columns: Columns<string>) => string = (columns) =>
    isCondition(rule) ? renderCondition(rule, columns, options) : renderTerm(rule, columns, options),
): Promise<Disagreement[]> {
  const columns = Object.fromEntries(table.names.map((name) => [name, `"v"."${name}"`]));
  const rendered = render(columns);
  return isCondition(rule)
    ? disagreements(database, table, `case when ${rendered} then 1 else 0 end`, (values) => holds(rule, values))
    : disagreements(database, table, rendered, (values) => evaluate(rule, values));
}

const titleOf = (rule: RuleTable, options: RenderOptions) => `${rule.title}${options.bigint ? ', widened' : ''}`;

describe('The stock rules rendered into SQL', () => {
  describe('the tables', () => {
    it('cover every Condition and Term @stock/domain exports', () => {
      const exported = exportedRules(domain);
      const covered = new Set<object>(RULES.map(({ rule }) => rule));
      expect([...exported].filter(([rule]) => !covered.has(rule)).map(([, path]) => path)).to.deep.equal([]);
      // Each table is titled by where the walk finds its rule; a walk that found nothing cannot pass.
      expect([...exported.values()]).to.have.members(RULES.map(({ title }) => title));
    });

    for (const rule of [...RULES, ...COMPOSED])
      it(`${rule.title}: has a column for each name it reads, and rows where it holds and where it does not`, () => {
        expect(rule.table.names).to.include.members(namesRead(rule.rule));
        for (const row of rule.table.rows) expect(row, row[0]).to.have.length(rule.table.names.length + 1);
        if (isCondition(rule.rule)) {
          const answers = rule.table.rows.map((row) =>
            holds(rule.rule as Condition<string>, valuesOf(rule.table, row)),
          );
          expect([...new Set(answers)].sort(), 'the answers of its rows').to.deep.equal([false, true]);
        }
      });
  });

  for (const dialect of ['sqlite', 'postgresql'] as const)
    describe(`on ${dialect}`, () => {
      let database: Database;
      let cleanUp: () => Promise<void>;

      before(async function () {
        const scratch = await scratchUrl(dialect, this, 'rules');
        cleanUp = scratch.cleanUp;
        database = await openStockDatabase(scratch.url, { createDatabase: true });
      });
      after(async () => {
        await database?.close();
        await cleanUp?.();
      });

      for (const rule of [...RULES, ...COMPOSED])
        for (const options of rule.rendered)
          it(`${titleOf(rule, options)}: answers what the aggregate answers at every boundary`, async () => {
            expect(await ruleDisagreements(database, rule, options)).to.deep.equal([]);
          });

      it('AVAILABLE_SQL and STOCK_STATE_SQL, as search and the indexes write them, answer Product.availableQuantity and stockStateOf', async () => {
        const product = { alias: 'product', column: (name: string) => PRODUCT_NAMES[name as domain.ProductName] };
        expect(
          await disagreements(database, PRODUCT, AVAILABLE_SQL, (values) => evaluate(AVAILABLE, values), product),
        ).to.deep.equal([]);
        expect(
          await disagreements(database, PRODUCT, STOCK_STATE_SQL, (values) => stockStateOf(values), product),
        ).to.deep.equal([]);
      });

      it('levelIsEmpty and levelHasAvailable, as the statements write them, answer LEVEL_IS_EMPTY and LEVEL_HAS_AVAILABLE', async () => {
        const level = {
          alias: 'stock_level',
          column: (name: string) => levelNames()[name as domain.LevelName].split('.').at(-1)!,
        };
        const answer = (sql: string) => `case when ${sql} then 1 else 0 end`;
        expect(
          await disagreements(
            database,
            LEVEL,
            answer(levelIsEmpty()),
            (values) => holds(LEVEL_IS_EMPTY, values),
            level,
          ),
        ).to.deep.equal([]);
        expect(
          await disagreements(
            database,
            LEVEL,
            answer(levelHasAvailable()),
            (values) => holds(LEVEL_HAS_AVAILABLE, values),
            level,
          ),
        ).to.deep.equal([]);
      });

      it('tells a rendering that is off at a boundary, or not widened, from the aggregate (a check of this test)', async () => {
        const keepsHolds = RULES.find(({ rule }) => rule === KEEPS_HOLDS)!;
        // A scratch copy of KEEPS_HOLDS one off at its boundary: > where the rule says >=.
        const offByOne = { ...KEEPS_HOLDS, op: '>' } as Condition<string>;
        const atTheHolds = keepsHolds.table.rows.filter((row) => {
          const { onHand, reserved, committed, qualityControl, damaged, delta } = valuesOf(keepsHolds.table, row);
          const setAside = [reserved, committed, qualityControl, damaged].reduce<number>(
            (sum, each) => sum + Number(each),
            0,
          );
          return Number(onHand) + Number(delta) === setAside;
        });
        expect(atTheHolds).to.have.length.above(1);
        expect(
          (
            await ruleDisagreements(database, keepsHolds, WIDE, (columns) => renderCondition(offByOne, columns, WIDE))
          ).map(({ row }) => row),
        ).to.deep.equal(atTheHolds.map(([boundary, ...values]) => `${boundary} (${values.join(', ')})`));

        // WITHIN_STOCK_MAX rendered without widening: PostgreSQL's int4 sum overflows; SQLite's integers are 64-bit.
        const withinMax = RULES.find(({ rule }) => rule === WITHIN_STOCK_MAX)!;
        const narrow = await ruleDisagreements(database, withinMax, EXACT);
        const pastInt4 = withinMax.table.rows.filter((row) => {
          const { quantityInStock, delta } = valuesOf(withinMax.table, row);
          return Number(quantityInStock) + Number(delta) > MAX;
        });
        expect(narrow.map(({ row }) => row)).to.deep.equal(
          dialect === 'postgresql' ? pastInt4.map(([boundary, ...values]) => `${boundary} (${values.join(', ')})`) : [],
        );
        for (const { database: answer } of narrow) expect(answer).to.match(/integer out of range/);
      });
    });

  describe('the expression indexes', () => {
    /** Every statement the migrations of a dialect run up, in order. */
    const statementsOf = async (dialect: 'postgresql' | 'sqlite') => {
      const statements: string[] = [];
      for (const { class: migration } of STOCK_MIGRATIONS[dialect]) {
        const made = new (migration as typeof PostgresqlCatalogueSearch)(undefined as never, undefined as never);
        await made.up();
        statements.push(...made.getQueries().map(String));
      }
      return statements;
    };
    const INDEXES = {
      product_available_id_index: `${AVAILABLE_SQL}, "id"`,
      product_available_desc_id_index: `${AVAILABLE_SQL} desc, "id"`,
      product_stock_state_id_index: `${STOCK_STATE_SQL}, "id"`,
    };

    for (const dialect of ['postgresql', 'sqlite'] as const)
      it(`on ${dialect}: were made last with AVAILABLE_SQL and STOCK_STATE_SQL word for word, as the mapping makes them (a planner uses an expression index only for the same expression)`, async () => {
        const statements = await statementsOf(dialect);
        const mapping = productSchema(dialect).meta.indexes;
        for (const [name, columns] of Object.entries(INDEXES)) {
          const made = statements.filter((statement) => statement.startsWith(`create index "${name}" `));
          expect(made, `${name}: the history made it, the named states made it again`).to.have.length(2);
          const statement = `create index "${name}" on "product" (${columns})`;
          expect(made.at(-1), name).to.equal(statement);
          expect(mapping.find((index) => index.name === name)?.expression, name).to.equal(statement);
        }
      });
  });

  describe('the statements', () => {
    // The renderings above are the ones the statements embed, with the same widening.
    it('the adjustment at once decides with MOVES_STOCK, KEEPS_HOLDS, WITHIN_STOCK_MAX, not ARRIVAL_FILLS and LOW_STOCK_STEADY, widened', () => {
      const product = (column: string) => `p.${column}`;
      const delta = 'p_delta';
      const available = renderTerm(
        plus(AVAILABLE, value('delta')),
        {
          quantityInStock: product('quantity_in_stock'),
          reservedQuantity: product('reserved_quantity'),
          committedQuantity: product('committed_quantity'),
          qualityControlQuantity: product('quality_control_quantity'),
          damagedQuantity: product('damaged_quantity'),
          backorderedQuantity: product('backordered_quantity'),
          delta,
        },
        WIDE,
      );
      const level = {
        onHand: 'l.on_hand',
        reserved: 'l.reserved',
        committed: 'l.committed',
        qualityControl: 'l.quality_control',
        damaged: 'l.damaged',
      };
      const none = { reservedDelta: '0', committedDelta: '0', qualityControlDelta: '0', damagedDelta: '0' };
      for (const rendered of [
        renderCondition(MOVES_STOCK, { quantityDelta: delta, ...none }),
        renderCondition(KEEPS_HOLDS, { ...level, delta }, WIDE),
        renderCondition(WITHIN_STOCK_MAX, { quantityInStock: product('quantity_in_stock'), delta }, WIDE),
        renderCondition(not(ARRIVAL_FILLS), { delta, backorderedQuantity: product('backordered_quantity') }, WIDE),
        renderCondition(
          LOW_STOCK_STEADY,
          {
            available,
            lowStockThreshold: product('low_stock_threshold'),
            lowStockAlert: product('low_stock_alert'),
            hysteresis: 'p_hysteresis',
          },
          WIDE,
        ),
      ])
        expect(ADJUST_AT_ONCE_ROUTINE.body as string, 'written as text').to.include(rendered);
    });

    it('REPLACE_AT_ONCE decides with LEVEL_IS_EMPTY and COVERS_HOLDS, and LOW_STOCK_STEADY widened', () => {
      const available = renderTerm(
        AVAILABLE,
        {
          quantityInStock: '"replacement"."quantity"',
          reservedQuantity: '"product"."reserved_quantity"',
          committedQuantity: '"product"."committed_quantity"',
          qualityControlQuantity: '"product"."quality_control_quantity"',
          damagedQuantity: '"product"."damaged_quantity"',
          backorderedQuantity: '"product"."backordered_quantity"',
        },
        WIDE,
      );
      const atDefault = {
        reserved: '"default"."reserved"',
        committed: '"default"."committed"',
        qualityControl: '"default"."quality_control"',
        damaged: '"default"."damaged"',
      };
      for (const statement of [REPLACE_AT_ONCE.unversioned, REPLACE_AT_ONCE.versioned])
        for (const rendered of [
          levelIsEmpty('other'),
          renderCondition(COVERS_HOLDS, { quantity: '"replacement"."quantity"', ...atDefault }, WIDE),
          renderCondition(
            LOW_STOCK_STEADY,
            {
              available,
              lowStockThreshold: 'coalesce("replacement"."threshold", "product"."low_stock_threshold")',
              lowStockAlert: '"product"."low_stock_alert"',
              hysteresis: '"replacement"."hysteresis"',
            },
            WIDE,
          ),
        ])
          expect(statement.sql).to.include(rendered);
    });

    it('AVAILABLE_SQL and STOCK_STATE_SQL are AVAILABLE and STOCK_STATE rendered on the product columns, exactly', () => {
      expect(AVAILABLE_SQL).to.equal(renderTerm(AVAILABLE, PRODUCT_NAMES));
      const state = { available: AVAILABLE_SQL, lowStockThreshold: PRODUCT_NAMES.lowStockThreshold };
      expect(STOCK_STATE_SQL).to.include(renderCondition(STOCK_STATE.out, state));
      expect(STOCK_STATE_SQL).to.include(renderCondition(STOCK_STATE.low, state));
    });
  });
});
