import { type Dialect, type PreparedStatement, prepared } from '@platform/persistence';
import { Money, type ProductSearch, type ProductSort, SEARCH_RELEVANCE_FIELDS, type StockState } from '@stock/domain';
import { MONEY_COLUMN } from '../tables/columns';
import { AVAILABLE_SQL, productColumns, STOCK_STATE_SQL } from '../tables/product';
import { levelHasAvailable } from '../tables/stock-level';

const STATE_LITERALS: Readonly<Record<StockState, string>> = { in: 'in', low: 'low', out: 'out' };

/** A price as its column takes it: PostgreSQL's numeric as exact text (cast), SQLite's integer cents. */
function moneyParam(dialect: Dialect, cents: number): { readonly value: string | number; readonly cast: string } {
  return dialect === 'postgresql'
    ? { value: Money.fromCents(cents).toString(), cast: '::numeric' }
    : { value: cents, cast: '' };
}

/** Each sort's key expression and direction; `id` is every sort's tie-breaker, ascending. */
function sortKey(dialect: Dialect, sort: ProductSort) {
  const descending = sort.startsWith('-');
  const field = descending ? sort.slice(1) : sort;
  const key =
    field === 'name'
      ? '"name"'
      : field === 'price'
        ? `"${MONEY_COLUMN[dialect].name}"`
        : field === 'available'
          ? AVAILABLE_SQL
          : '"id"';
  return { key, descending, isPrice: field === 'price' };
}

/** The search's shape: which filters it has, its sort, and whether it starts after a position (one statement each). */
function shapeOf(query: ProductSearch): string {
  const has = (value: unknown) => (value === undefined ? '0' : '1');
  const { q, minPrice, maxPrice, stockState, locationId, sort, after } = query;
  return [q, minPrice, maxPrice, locationId, after].map(has).join('') + (stockState ?? '') + sort;
}

/**
 * SQLite: whether the row has an ASCII text, without FTS5 when the row is ASCII: there, LIKE folds case as FTS5's
 * trigram tokenizer does (ASCII letters). A row with other characters (which FTS5 folds and LIKE does not) is asked of
 * FTS5 by its rowid.
 */
const ROW_HAS_TEXT = `(${['name', 'description', 'sku'].map((column) => `"${column}" like ? escape '\\'`).join(' or ')} or (length(cast("name" || "description" || coalesce("sku", '') as blob)) <> length("name" || "description" || coalesce("sku", '')) and exists (select 1 from "product_search" where "product_search"."rowid" = "product"."id" and "product_search" match ?)))`;

function isAscii(text: string): boolean {
  return [...text].every((character) => character.charCodeAt(0) < 0x80);
}

/**
 * SQLite: a text with at least this many matches is common. The search then walks its sort's index, testing each
 * row (ROW_HAS_TEXT), and stops at the page, rather than sorting every match FTS5 answers. Where the two cost the
 * same: matches² ≈ page × catalogue / 3 (FTS5 answers a match in about three times the time LIKE tests a row), about
 * 1,300 for a page of 50 among 100,000 products.
 */
export const SQLITE_COMMON_TEXT_MATCHES = 1000;

const TEXT_MATCHES = prepared(
  `select count(*) as "matches" from (select 1 from "product_search" where "product_search" match ? limit ${SQLITE_COMMON_TEXT_MATCHES})`,
);

/** SQLite: how many products have the text, counted to SQLITE_COMMON_TEXT_MATCHES at most (FTS5 stops there). */
export function sqliteTextMatches(text: string): { readonly statement: PreparedStatement; readonly params: unknown[] } {
  return { statement: TEXT_MATCHES, params: [phrase(text)] };
}

/** Whether a search orders by a key that SQLite's text count decides the plan of (searchStatement's textIsCommon). */
export function sqliteCountsText(dialect: Dialect, query: ProductSearch): boolean {
  return dialect === 'sqlite' && query.q !== undefined && query.sort !== 'id' && query.sort !== 'relevance';
}

/** `%text%` for LIKE, its wildcards and escape character taken literally. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** An FTS5 phrase of the text: with the trigram tokenizer, the text anywhere in a column, whatever its case. */
function phrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * The filters' conditions and their parameters. The text is matched through the trigram index of each database
 * (PostgreSQL: pg_trgm's GIN index on each of name, description and SKU, which ILIKE uses; SQLite: the FTS5 table
 * "product_search" with the trigram tokenizer, kept by triggers).
 */
function filters(
  dialect: Dialect,
  query: ProductSearch,
  textIsCommon = false,
): { conditions: string[]; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const price = MONEY_COLUMN[dialect].name;
  if (query.q !== undefined && query.sort !== 'relevance') {
    if (dialect === 'postgresql') {
      conditions.push(`("name" ilike ? or "description" ilike ? or "sku" ilike ?)`);
      params.push(...Array<string>(3).fill(containing(query.q)));
    } else if (query.sort === 'id') {
      conditions.push(`"product_search" match ?`);
      params.push(phrase(query.q));
    } else if (textIsCommon && isAscii(query.q)) {
      conditions.push(ROW_HAS_TEXT);
      params.push(...Array<string>(3).fill(containing(query.q)), phrase(query.q));
    } else {
      conditions.push(`"id" in (select "rowid" from "product_search" where "product_search" match ?)`);
      params.push(phrase(query.q));
    }
  }
  for (const [bound, operator] of [
    [query.minPrice, '>='],
    [query.maxPrice, '<='],
  ] as const) {
    if (!bound) continue;
    const { value, cast } = moneyParam(dialect, bound.cents);
    conditions.push(`"${price}" ${operator} ?${cast}`);
    params.push(value);
  }
  // The state as a literal, one statement per state: SQLite's planner then weighs the state's index by its value.
  if (query.stockState) conditions.push(`${STOCK_STATE_SQL} = '${STATE_LITERALS[query.stockState]}'`);
  if (query.locationId !== undefined) {
    conditions.push(
      `exists (select 1 from "stock_level" where "stock_level"."product_id" = "product"."id" and "stock_level"."location_id" = ? and ${levelHasAvailable()})`,
    );
    params.push(query.locationId);
  }
  return { conditions, params };
}

/**
 * SQLite's text search in id order is driven by FTS5, which answers in rowid order: the page stops at its limit,
 * where `"id" in (…match…)` would read every match first. Other orders take the matches through that `in`.
 */
function ftsDriven(dialect: Dialect, query: ProductSearch): boolean {
  return dialect === 'sqlite' && query.q !== undefined && (query.sort === 'id' || query.sort === 'relevance');
}

/** The id the search orders and pages by: FTS5's rowid when it drives the search. */
function idOf(dialect: Dialect, query: ProductSearch): string {
  return ftsDriven(dialect, query) ? '"product_search"."rowid"' : '"id"';
}

const FTS_JOIN = '"product_search" join "product" on "product"."id" = "product_search"."rowid"';

/**
 * Where the page starts: after the position in the sort's order. `key >= ? and (key > ? or id > ?)` (`<=`, `<` when
 * descending) bounds the index range by the key and leaves the tie to the id. With no position, SQLite's id sort still
 * starts at `id > 0`, so that it searches its primary key rather than walking the table (PostgreSQL would take the
 * bound for a reason to scan an index by id alone).
 */
function keyset(dialect: Dialect, query: ProductSearch): { conditions: string[]; params: unknown[] } {
  const { key, descending, isPrice } = sortKey(dialect, query.sort);
  const { after } = query;
  if (query.sort === 'id')
    return after || dialect === 'sqlite'
      ? { conditions: [`${idOf(dialect, query)} > ?`], params: [after?.id ?? 0] }
      : { conditions: [], params: [] };
  if (!after) return { conditions: [], params: [] };
  const { value, cast } = isPrice ? moneyParam(dialect, Number(after.key)) : { value: after.key, cast: '' };
  const [bound, strict] = descending ? ['<=', '<'] : ['>=', '>'];
  return {
    conditions: [`${key} ${bound} ?${cast} and (${key} ${strict} ?${cast} or "id" > ?)`],
    params: [value, value, after.id],
  };
}

/** `sort=relevance`'s ranks: SEARCH_RELEVANCE_FIELDS, the best first. */
export const RELEVANCE_RANKS = SEARCH_RELEVANCE_FIELDS.length;

/**
 * One relevance rank's products in id order, after the position when it is in this rank, at most `limit`: the rank's
 * own text condition (PostgreSQL: ILIKE on its field, the better fields' ILIKE not true; SQLite: the FTS5 query of its
 * column, NOT the better columns'), then the other filters. A common text is read in id order and stops at the limit
 * (PostgreSQL walks the primary key; FTS5 answers in rowid order); a rare one from the trigram index, its few matches
 * sorted. Never a sort of every match.
 */
function relevanceRank(dialect: Dialect, query: ProductSearch, rank: number): { sql: string; params: unknown[] } {
  const fields = SEARCH_RELEVANCE_FIELDS.slice(0, rank + 1);
  const text = query.q ?? '';
  const other = filters(dialect, query);
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (dialect === 'postgresql') {
    conditions.push(
      `"${fields[rank]}" ilike ?`,
      ...fields.slice(0, rank).map((field) => `("${field}" ilike ?) is not true`),
    );
    params.push(...Array<string>(rank + 1).fill(containing(text)));
  } else {
    conditions.push(`"product_search" match ?`);
    const [own, ...better] = [fields[rank]!, ...fields.slice(0, rank)].map((field) => `${field} : ${phrase(text)}`);
    params.push(better.length ? `${own} NOT (${better.join(' OR ')})` : own);
  }
  conditions.push(...other.conditions);
  params.push(...other.params);
  const id = idOf(dialect, query);
  if (query.after?.key === rank) {
    conditions.push(`${id} > ?`);
    params.push(query.after.id);
  }
  params.push(query.limit);
  return {
    sql: `select ${productColumns(dialect, 'product')} from ${dialect === 'postgresql' ? '"product"' : FTS_JOIN} where ${conditions.join(' and ')} order by ${id} limit ?`,
    params,
  };
}

const cache = new Map<string, PreparedStatement>();

/**
 * `sort=relevance`'s statement for one rank (relevanceRank): the search runs the ranks in turn from the position's,
 * each for what the page still lacks, and stops when it is full. A common text fills the page from the name's rank
 * without reading the others. Unnamed on PostgreSQL, as a text search is (searchStatement).
 */
export function relevanceStatement(
  dialect: Dialect,
  query: ProductSearch,
  rank: number,
): { readonly sql: string; readonly statement: string | PreparedStatement; readonly params: unknown[] } {
  if (query.q === undefined) throw new Error('sort=relevance needs q.');
  const { sql, params } = relevanceRank(dialect, query, rank);
  if (dialect === 'postgresql') return { sql, statement: sql, params };
  const cacheKey = `${dialect}:${shapeOf(query)}:${rank}:${query.after?.key === rank ? 1 : 0}`;
  let statement = cache.get(cacheKey);
  if (!statement) cache.set(cacheKey, (statement = prepared(sql)));
  return { sql, statement, params };
}

/**
 * One search as a statement and its parameters. Each shape's text is prepared once, except a text search on
 * PostgreSQL: a named statement may settle on a generic plan, which cannot know how rare the text is and would walk
 * an index in the sort's order; unnamed, it is planned with the text each time and takes the trigram indexes when the
 * text is rare.
 */
export function searchStatement(
  dialect: Dialect,
  query: ProductSearch,
  textIsCommon = false,
): { readonly sql: string; readonly statement: string | PreparedStatement; readonly params: unknown[] } {
  if (query.sort === 'relevance') throw new Error('sort=relevance is searched rank by rank: relevanceStatement.');
  const common = textIsCommon && sqliteCountsText(dialect, query) && isAscii(query.q!);
  const cacheKey = `${dialect}:${shapeOf(query)}${common ? ':common' : ''}`;
  const filtered = filters(dialect, query, common);
  const page = keyset(dialect, query);
  const params = [...filtered.params, ...page.params, query.limit];
  let statement = cache.get(cacheKey);
  if (!statement) {
    const { key, descending } = sortKey(dialect, query.sort);
    const where = [...filtered.conditions, ...page.conditions];
    const order = query.sort === 'id' ? idOf(dialect, query) : `${key}${descending ? ' desc' : ''}, "id"`;
    const from = ftsDriven(dialect, query) ? FTS_JOIN : '"product"';
    statement = prepared(
      `select ${productColumns(dialect, 'product')} from ${from}${where.length ? ` where ${where.join(' and ')}` : ''} order by ${order} limit ?`,
    );
    cache.set(cacheKey, statement);
  }
  const unnamed = dialect === 'postgresql' && query.q !== undefined;
  return { sql: statement.sql, statement: unnamed ? statement.sql : statement, params };
}
