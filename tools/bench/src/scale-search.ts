import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminQuery, databaseUrl } from '@platform/test-kit';
import { openStockDatabase, SEED_COMMON_WORD, SEED_RARE_WORD, seedCatalogue } from '@stock/persistence-sql';
import { type LatencySummary, pacedLatency } from './paced-latency';
import { median } from './report';
import { startTarget, stop } from './target-process';

/** Issue 25's target: at the large size, each search's latency within this many times the small size's. */
export const SEARCH_TARGET_RATIO = 1.5;
/** Issue 36's targets for a text search (`q=`): its p99 at the large size at most this, on PostgreSQL… */
export const TEXT_SEARCH_P99_MS = 50;
/** …and within this many times the small size's p99 on PostgreSQL (a million products against a thousand)… */
export const TEXT_SEARCH_TARGET_RATIO = 2;
/** …and on SQLite (`--sqlite-products`, a hundred thousand, against a thousand). */
export const SQLITE_TEXT_SEARCH_TARGET_RATIO = 3;

export const TEXT_SEARCH_KINDS = ['qRareRelevance', 'qRareName', 'qCommonRelevance', 'qCommonName'] as const;
export const SEARCH_KINDS = [...TEXT_SEARCH_KINDS, 'sortPrice', 'stockStateLow'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];
const isText = (kind: SearchKind) => (TEXT_SEARCH_KINDS as readonly SearchKind[]).includes(kind);

const dbName = (size: number) => `stock_search_${size}`;
const randomCents = () => Math.floor(Math.random() * 100_000);
const text = (word: string, sort: string) => () => () => `/api/products?q=${word}&sort=${sort}&limit=50`;

/**
 * What each measured request asks: the first page of a rare word (one product in a thousand has it) and of a common
 * one (one in ten), by relevance and by name; the next 50 by price from a random price, and the next 50 low products
 * after a random id (the list's stock-state page, on its index).
 */
const PATHS: Record<SearchKind, (size: number) => () => string> = {
  qRareRelevance: text(SEED_RARE_WORD, 'relevance'),
  qRareName: text(SEED_RARE_WORD, 'name'),
  qCommonRelevance: text(SEED_COMMON_WORD, 'relevance'),
  qCommonName: text(SEED_COMMON_WORD, 'name'),
  sortPrice: () => () => `/api/products?sort=price&minPrice=${(randomCents() / 100).toFixed(2)}&limit=50`,
  stockStateLow: (size) => () =>
    `/api/products?stockState=low&limit=50&after=${Math.floor(Math.random() * Math.max(1, size - 500))}`,
};

const LABELS: Record<SearchKind, string> = {
  qRareRelevance: `q=${SEED_RARE_WORD}&sort=relevance (0.1 %)`,
  qRareName: `q=${SEED_RARE_WORD}&sort=name (0.1 %)`,
  qCommonRelevance: `q=${SEED_COMMON_WORD}&sort=relevance (10 %)`,
  qCommonName: `q=${SEED_COMMON_WORD}&sort=name (10 %)`,
  sortPrice: 'sort=price (from a random minPrice)',
  stockStateLow: 'stockState=low (after a random id)',
};

/**
 * A fresh database of `size` products, seeded by one statement (generate_series) through the same migrations as the
 * service, then vacuumed and analyzed as autovacuum would leave it (the GIN indexes' pending lists merged).
 */
async function seedCatalogueDatabase(size: number, log: (line: string) => void): Promise<string> {
  await adminQuery(`drop database if exists "${dbName(size)}" with (force)`);
  await adminQuery(`create database "${dbName(size)}"`);
  const url = databaseUrl(dbName(size));
  await seedInto(url, size, log);
  await adminQuery('vacuum analyze "product"', url);
  await adminQuery('checkpoint');
  return url;
}

/** The service's own migrations, then `size` products in one transaction (seedCatalogue). */
async function seedInto(url: string, size: number, log: (line: string) => void): Promise<void> {
  const started = performance.now();
  const database = await openStockDatabase(url, { queryTimeoutMs: 3_600_000, createDatabase: true });
  try {
    await database.migrate();
    await database.transaction((session) => seedCatalogue(session, size));
  } finally {
    await database.close();
  }
  const where = url.startsWith('sqlite:') ? 'SQLite' : 'PostgreSQL';
  log(
    `  seeded ${size.toLocaleString('en')} products on ${where} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

type Runs = Partial<Record<SearchKind, { small: LatencySummary[]; large: LatencySummary[] }>>;
/** The median of the per-repetition ratios large / small, p50 and p99. */
type Ratios = Partial<Record<SearchKind, { p50: number; p99: number }>>;

export interface SearchPace {
  /** The rate of the text searches (issue 36: 100 req/s). */
  readonly textRate: number;
  /** The rate of the others (issue 25: 300 req/s). */
  readonly rate: number;
  readonly seconds: number;
}

export interface SearchResult {
  readonly small: number;
  readonly large: number;
  readonly sqliteLarge: number;
  readonly pace: SearchPace;
  readonly latency: Runs;
  readonly ratios: Ratios;
  /** The text searches on SQLite at `small` and `sqliteLarge` products (none when `sqliteLarge` is 0). */
  readonly sqlite: { readonly latency: Runs; readonly ratios: Ratios };
  readonly markdown: string;
}

/**
 * Two instances of the service, one per catalogue, measured in turn (alternating order per repetition, so drift
 * falls on both), each search at its fixed rate (the text searches at `textRate`).
 */
async function measurePair(
  urls: readonly [small: string, large: string],
  sizes: readonly [small: number, large: number],
  kinds: readonly SearchKind[],
  pace: SearchPace,
  reps: number,
  log: (line: string) => void,
): Promise<{ latency: Runs; ratios: Ratios }> {
  const instances = await Promise.all(
    sizes.map(async (size, index) => ({
      size,
      which: index === 0 ? ('small' as const) : ('large' as const),
      ...(await startTarget('service.ts', urls[index]!, '10')),
    })),
  );
  const latency: Runs = Object.fromEntries(kinds.map((kind) => [kind, { small: [], large: [] }]));
  const rateOf = (kind: SearchKind) => ({ rate: isText(kind) ? pace.textRate : pace.rate, seconds: pace.seconds });
  try {
    for (const { base, size } of instances)
      for (const kind of kinds) await pacedLatency(base, PATHS[kind](size), { ...rateOf(kind), seconds: 2 });
    for (let rep = 1; rep <= reps; rep++)
      for (const { base, size, which } of rep % 2 ? instances : [...instances].reverse())
        for (const kind of kinds) {
          const result = await pacedLatency(base, PATHS[kind](size), rateOf(kind));
          latency[kind]![which].push(result);
          log(
            `  rep ${rep} · ${size.toLocaleString('en')} products · ${LABELS[kind]} at ${rateOf(kind).rate} req/s: p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms`,
          );
        }
  } finally {
    await Promise.all(instances.map(({ child }) => stop(child)));
  }
  const ratio = (kind: SearchKind, figure: 'p50Ms' | 'p99Ms') => {
    const { small, large } = latency[kind]!;
    return Math.round(median(large.map((run, rep) => run[figure] / small[rep]![figure])) * 100) / 100;
  };
  const ratios: Ratios = Object.fromEntries(
    kinds.map((kind) => [kind, { p50: ratio(kind, 'p50Ms'), p99: ratio(kind, 'p99Ms') }]),
  );
  return { latency, ratios };
}

const ms = (values: LatencySummary[], figure: 'p50Ms' | 'p99Ms') => median(values.map((r) => r[figure])).toFixed(2);
const n = (size: number) => size.toLocaleString('en');

/**
 * Search latency at `small` and `large` products on PostgreSQL, and the text searches at `small` and `sqliteLarge`
 * on SQLite: each search's p50 and p99, and the verdict against its targets (issue 36's for `q=`, issue 25's for
 * the others).
 */
export async function measureSearch(
  small: number,
  large: number,
  sqliteLarge: number,
  pace: SearchPace,
  reps: number,
  log: (line: string) => void,
): Promise<SearchResult> {
  const sizes = [small, large] as const;
  const scratch = mkdtempSync(join(tmpdir(), 'scale-search-'));
  try {
    const urls = [await seedCatalogueDatabase(small, log), await seedCatalogueDatabase(large, log)] as const;
    const postgres = await measurePair(urls, sizes, SEARCH_KINDS, pace, reps, log);
    let sqlite: { latency: Runs; ratios: Ratios } = { latency: {}, ratios: {} };
    if (sqliteLarge > 0) {
      const sqliteSizes = [small, sqliteLarge] as const;
      const sqliteUrl = (size: number) => `sqlite:${join(scratch, `stock-${size}.db`)}`;
      const sqliteUrls = [sqliteUrl(small), sqliteUrl(sqliteLarge)] as const;
      for (const size of sqliteSizes) await seedInto(sqliteUrl(size), size, log);
      sqlite = await measurePair(sqliteUrls, sqliteSizes, TEXT_SEARCH_KINDS, pace, reps, log);
    }

    const postgresVerdict = (kind: SearchKind) => {
      const { p50, p99 } = postgres.ratios[kind]!;
      if (!isText(kind)) return p50 <= SEARCH_TARGET_RATIO && p99 <= SEARCH_TARGET_RATIO ? 'met' : 'MISSED';
      const p99Ms = Number(ms(postgres.latency[kind]!.large, 'p99Ms'));
      return p99Ms <= TEXT_SEARCH_P99_MS && p99 <= TEXT_SEARCH_TARGET_RATIO ? 'met' : 'MISSED';
    };
    const target = (kind: SearchKind) =>
      isText(kind)
        ? `p99 ≤ ${TEXT_SEARCH_P99_MS} ms, ≤ ${TEXT_SEARCH_TARGET_RATIO}× (${pace.textRate} req/s)`
        : `≤ ${SEARCH_TARGET_RATIO}× (${pace.rate} req/s)`;
    const row = (runs: Runs, ratios: Ratios, kind: SearchKind, goal: string, verdict: string) =>
      `| ${LABELS[kind]} | ${ms(runs[kind]!.small, 'p50Ms')} / ${ms(runs[kind]!.small, 'p99Ms')} | ${ms(runs[kind]!.large, 'p50Ms')} / ${ms(runs[kind]!.large, 'p99Ms')} | ${ratios[kind]!.p50} / ${ratios[kind]!.p99} | ${goal} | ${verdict} |`;
    const markdown = [
      `PostgreSQL, ${n(small)} against ${n(large)} products:`,
      '',
      `| search, p50 / p99 ms | ${n(small)} products | ${n(large)} products | ratio | target | |`,
      '| --- | ---: | ---: | ---: | --- | --- |',
      ...SEARCH_KINDS.map((kind) => row(postgres.latency, postgres.ratios, kind, target(kind), postgresVerdict(kind))),
      ...(sqliteLarge > 0
        ? [
            '',
            `SQLite, ${n(small)} against ${n(sqliteLarge)} products:`,
            '',
            `| search, p50 / p99 ms | ${n(small)} products | ${n(sqliteLarge)} products | ratio | target | |`,
            '| --- | ---: | ---: | ---: | --- | --- |',
            ...TEXT_SEARCH_KINDS.map((kind) =>
              row(
                sqlite.latency,
                sqlite.ratios,
                kind,
                `p99 ≤ ${SQLITE_TEXT_SEARCH_TARGET_RATIO}× (${pace.textRate} req/s)`,
                sqlite.ratios[kind]!.p99 <= SQLITE_TEXT_SEARCH_TARGET_RATIO ? 'met' : 'MISSED',
              ),
            ),
          ]
        : []),
    ].join('\n');
    return { small, large, sqliteLarge, pace, ...postgres, sqlite, markdown };
  } finally {
    for (const size of sizes)
      await adminQuery(`drop database if exists "${dbName(size)}" with (force)`).catch(() => undefined);
    rmSync(scratch, { recursive: true, force: true });
  }
}
