import { adminQuery, databaseUrl } from '@platform/test-kit';
import { openStockDatabase, SEED_RARE_WORD, seedCatalogue } from '@stock/persistence-sql';
import { type LatencySummary, pacedLatency } from './paced-latency';
import { median } from './report';
import { startTarget, stop } from './target-process';

/** Issue 25's target: at the large size, each search's latency within this many times the small size's. */
export const SEARCH_TARGET_RATIO = 1.5;

export const SEARCH_KINDS = ['q', 'sortPrice', 'stockStateLow'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

const dbName = (size: number) => `stock_search_${size}`;
const randomCents = () => Math.floor(Math.random() * 100_000);

/**
 * What each measured request asks: a rare word (one product in a thousand has it), the next 50 by price from a random
 * price, and the next 50 low products after a random id (the list's stock-state page, on its index).
 */
const PATHS: Record<SearchKind, (size: number) => () => string> = {
  q: () => () => `/api/products?q=${SEED_RARE_WORD}&limit=50`,
  sortPrice: () => () => `/api/products?sort=price&minPrice=${(randomCents() / 100).toFixed(2)}&limit=50`,
  stockStateLow: (size) => () =>
    `/api/products?stockState=low&limit=50&after=${Math.floor(Math.random() * Math.max(1, size - 500))}`,
};

const LABELS: Record<SearchKind, string> = {
  q: `q=${SEED_RARE_WORD}`,
  sortPrice: 'sort=price (from a random minPrice)',
  stockStateLow: 'stockState=low (after a random id)',
};

/**
 * A fresh database of `size` products, seeded by one statement (generate_series) through the same migrations as the
 * service, then vacuumed and analyzed as autovacuum would leave it (the GIN indexes' pending lists merged).
 */
async function seedCatalogueDatabase(size: number, log: (line: string) => void): Promise<void> {
  await adminQuery(`drop database if exists "${dbName(size)}" with (force)`);
  await adminQuery(`create database "${dbName(size)}"`);
  const started = performance.now();
  const database = await openStockDatabase(databaseUrl(dbName(size)), { queryTimeoutMs: 3_600_000 });
  try {
    await database.migrate();
    await database.transaction((session) => seedCatalogue(session, size));
  } finally {
    await database.close();
  }
  await adminQuery('vacuum analyze "product"', databaseUrl(dbName(size)));
  await adminQuery('checkpoint');
  log(`  seeded ${size.toLocaleString('en')} products in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

export interface SearchResult {
  readonly small: number;
  readonly large: number;
  readonly latency: Record<SearchKind, { small: LatencySummary[]; large: LatencySummary[] }>;
  /** The median of the per-repetition ratios large / small, p50 and p99. */
  readonly ratios: Record<SearchKind, { p50: number; p99: number }>;
  readonly markdown: string;
}

/**
 * Search latency at `small` and `large` products on PostgreSQL: two instances, measured in turn (alternating order
 * per repetition, so drift falls on both), each search at a fixed rate; the ratio against SEARCH_TARGET_RATIO.
 */
export async function measureSearch(
  small: number,
  large: number,
  pace: { rate: number; seconds: number },
  reps: number,
  log: (line: string) => void,
): Promise<SearchResult> {
  const sizes = [small, large];
  try {
    for (const size of sizes) await seedCatalogueDatabase(size, log);
    const instances = await Promise.all(
      sizes.map(async (size) => ({ size, ...(await startTarget('service.ts', databaseUrl(dbName(size)), '10')) })),
    );
    const runs: SearchResult['latency'] = {
      q: { small: [], large: [] },
      sortPrice: { small: [], large: [] },
      stockStateLow: { small: [], large: [] },
    };
    try {
      const warmUp = { ...pace, seconds: 2 };
      for (const { base, size } of instances)
        for (const kind of SEARCH_KINDS) await pacedLatency(base, PATHS[kind](size), warmUp);
      for (let rep = 1; rep <= reps; rep++)
        for (const { base, size } of rep % 2 ? instances : [...instances].reverse())
          for (const kind of SEARCH_KINDS) {
            const result = await pacedLatency(base, PATHS[kind](size), pace);
            runs[kind][size === small ? 'small' : 'large'].push(result);
            log(
              `  rep ${rep} · ${size.toLocaleString('en')} products · ${LABELS[kind]}: p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms`,
            );
          }
    } finally {
      await Promise.all(instances.map(({ child }) => stop(child)));
    }
    const ratio = (kind: SearchKind, figure: 'p50Ms' | 'p99Ms') =>
      Math.round(median(runs[kind].large.map((run, rep) => run[figure] / runs[kind].small[rep]![figure])) * 100) / 100;
    const ratios = Object.fromEntries(
      SEARCH_KINDS.map((kind) => [kind, { p50: ratio(kind, 'p50Ms'), p99: ratio(kind, 'p99Ms') }]),
    ) as SearchResult['ratios'];
    const ms = (values: LatencySummary[], figure: 'p50Ms' | 'p99Ms') => median(values.map((r) => r[figure])).toFixed(2);
    const verdict = ({ p50, p99 }: { p50: number; p99: number }) =>
      p50 <= SEARCH_TARGET_RATIO && p99 <= SEARCH_TARGET_RATIO ? 'met' : 'MISSED';
    const n = (size: number) => size.toLocaleString('en');
    const markdown = [
      `| search, p50 / p99 ms | ${n(small)} products | ${n(large)} products | ratio (target ≤ ${SEARCH_TARGET_RATIO}×) | target |`,
      '| --- | ---: | ---: | ---: | --- |',
      ...SEARCH_KINDS.map(
        (kind) =>
          `| ${LABELS[kind]} | ${ms(runs[kind].small, 'p50Ms')} / ${ms(runs[kind].small, 'p99Ms')} | ${ms(runs[kind].large, 'p50Ms')} / ${ms(runs[kind].large, 'p99Ms')} | ${ratios[kind].p50} / ${ratios[kind].p99} | ${verdict(ratios[kind])} |`,
      ),
    ].join('\n');
    return { small, large, latency: runs, ratios, markdown };
  } finally {
    for (const size of sizes)
      await adminQuery(`drop database if exists "${dbName(size)}" with (force)`).catch(() => undefined);
  }
}
