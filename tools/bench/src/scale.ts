import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { seedProducts } from '@tools/seed';
import { adminQuery, databaseUrl } from '@platform/test-kit';
import { importAtScale, importReport } from './import-scale';
import { type LatencySummary, pacedLatency } from './paced-latency';
import { median } from './report';
import { measureSearch } from './scale-search';
import { rssMiB, startTarget, stop } from './target-process';

/**
 * The service on PostgreSQL with a small catalogue and with a million products,
 * both seeded first and served at once by two instances, measured in turn
 * (small, large, large, small, …) so that drift on the machine falls on both:
 * latency of GET one and of a keyset page at a fixed rate. Then the whole list
 * streamed at a tenth of the large size and at the large size, with the
 * server's memory watched: flat means the peak does not grow with the list.
 * Then search (issues 25 and 36): `q=` (a rare and a common word, by relevance
 * and by name, at `--search-rate`), `sort=price` and `stockState=low` at `small`
 * and at `--products` products on PostgreSQL, each seeded by one SQL statement,
 * and the `q=` searches on SQLite at `small` and `--sqlite-products` (0: none),
 * against their targets. `--parts search --products 20000 --sqlite-products
 * 20000` tries the search part alone, small.
 */
const { values: options } = parseArgs({
  options: {
    small: { type: 'string', default: '1000' },
    large: { type: 'string', default: '1000000' },
    rate: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '6' },
    reps: { type: 'string', default: '7' },
    out: { type: 'string', default: 'bench-results' },
    /** Rows of the product import measured (issue 25: a million in under five minutes). */
    rows: { type: 'string', default: '1000000' },
    /** Measure only the import (e.g. `--import-only --rows 10000` for a quick look). */
    'import-only': { type: 'boolean', default: false },
    /** The search part's large catalogue. */
    products: { type: 'string', default: '1000000' },
    /** The rate of the search part's `q=` searches (issue 36: 100 req/s); the others take `--rate`. */
    'search-rate': { type: 'string', default: '100' },
    /** The search part's large catalogue on SQLite (issue 36: a hundred thousand); 0 leaves SQLite out. */
    'sqlite-products': { type: 'string', default: '100000' },
    /** `service` (GET one, pages, the stream), `search`, or both. */
    parts: { type: 'string', default: 'service,search' },
  },
});
const parts = new Set(options.parts.split(','));
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)}  ${line}\n`);
const small = Number(options.small);
const large = Number(options.large);
const tenth = Math.round(large / 10);
const pace = { rate: Number(options.rate), seconds: Number(options.seconds) };
const sizes = [small, tenth, large];
const dbName = (size: number) => `stock_scale_${size}`;
const CAPPED_OLD_SPACE_MIB = 64;

const randomId = (products: number) => 1 + Math.floor(Math.random() * products);
const paths = {
  one: (products: number) => () => `/api/products/${randomId(products)}`,
  page: (products: number) => () => `/api/products?limit=50&after=${randomId(products - 50) - 1}`,
};

async function seed(size: number): Promise<void> {
  await adminQuery(`drop database if exists "${dbName(size)}" with (force)`);
  await adminQuery(`create database "${dbName(size)}"`);
  let shown = 0;
  const ms = await seedProducts(databaseUrl(dbName(size)), {
    count: size,
    batchSize: 5000,
    onProgress(done, total) {
      const percent = Math.floor((done / total) * 100);
      if (percent < shown + 25 && done !== total) return;
      log(`  ${size.toLocaleString('en')}: seeded ${percent}%`);
      shown = percent;
    },
  });
  // Fresh statistics and no dirty pages left from the load, as in a database that has lived a while.
  await adminQuery('vacuum analyze', databaseUrl(dbName(size)));
  await adminQuery('checkpoint');
  log(`  seeded ${size.toLocaleString('en')} products in ${(ms / 1000).toFixed(1)} s`);
}

/** Streams the whole list from a fresh instance, with V8's old generation capped at `oldSpaceMiB` if given. */
async function streamAll(size: number, oldSpaceMiB?: number) {
  const flags = oldSpaceMiB ? [`--max-old-space-size=${oldSpaceMiB}`] : [];
  const { child, base } = await startTarget('service.ts', databaseUrl(dbName(size)), '10', {}, flags);
  try {
    await pacedLatency(base, paths.one(size), { rate: 200, seconds: 1 }); // the same warm process as a serving instance
    const rssBeforeMiB = rssMiB(child.pid!);
    let rssPeakMiB = rssBeforeMiB;
    const sampler = setInterval(() => (rssPeakMiB = Math.max(rssPeakMiB, rssMiB(child.pid!))), 50);
    const started = performance.now();
    const response = await fetch(`${base}/api/products`);
    let bytes = 0;
    let count = 0;
    const decoder = new TextDecoder();
    const marker = '"quantityInStock"';
    let carry = ''; // shorter than the marker, so a marker split across chunks is counted once
    for await (const chunk of response.body! as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      const text = carry + decoder.decode(chunk, { stream: true });
      count += text.split(marker).length - 1;
      carry = text.slice(-(marker.length - 1));
    }
    clearInterval(sampler);
    if (count !== size) throw new Error(`streamed ${count} products of ${size}`);
    const result = {
      products: count,
      megabytes: bytes / 2 ** 20,
      seconds: (performance.now() - started) / 1000,
      rssBeforeMiB,
      rssPeakMiB,
      rssAfterMiB: rssMiB(child.pid!),
    };
    log(
      `  streamed ${count.toLocaleString('en')} products${oldSpaceMiB ? ` (heap capped at ${oldSpaceMiB} MiB)` : ''} (${result.megabytes.toFixed(0)} MiB) in ${result.seconds.toFixed(1)} s; RSS ${rssBeforeMiB.toFixed(0)} → peak ${rssPeakMiB.toFixed(0)} → ${result.rssAfterMiB.toFixed(0)} MiB`,
    );
    return result;
  } finally {
    await stop(child);
  }
}

if (options['import-only']) {
  const result = await importAtScale(Number(options.rows), log);
  mkdirSync(options.out, { recursive: true });
  writeFileSync(join(options.out, 'scale-import.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${importReport(result)}\n`);
  process.exit(0);
}

async function measureService(): Promise<void> {
  for (const size of sizes) await seed(size);

  const instances = await Promise.all(
    [small, large].map(async (size) => ({
      size,
      ...(await startTarget('service.ts', databaseUrl(dbName(size)), '10')),
    })),
  );
  const runs: Record<number, { one: LatencySummary[]; page: LatencySummary[] }> = {
    [small]: { one: [], page: [] },
    [large]: { one: [], page: [] },
  };
  try {
    for (const { base, size } of instances)
      for (const kind of ['one', 'page'] as const) await pacedLatency(base, paths[kind](size), { ...pace, seconds: 2 }); // warm-up
    for (let rep = 1; rep <= Number(options.reps); rep++) {
      for (const { base, size } of rep % 2 ? instances : [...instances].reverse()) {
        for (const kind of ['one', 'page'] as const) {
          const result = await pacedLatency(base, paths[kind](size), pace);
          runs[size]![kind].push(result);
          log(
            `  rep ${rep} · ${size.toLocaleString('en')} products · ${kind === 'one' ? 'GET one' : 'page of 50'}: p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms`,
          );
        }
      }
    }
  } finally {
    await Promise.all(instances.map(({ child }) => stop(child)));
  }
  const latencyAt = (size: number, kind: 'one' | 'page') => ({
    p50Ms: median(runs[size]![kind].map((r) => r.p50Ms)),
    p99Ms: median(runs[size]![kind].map((r) => r.p99Ms)),
  });
  // Each repetition measures both sizes back to back, so the ratio within a repetition is free of the
  // machine's drift; the median of those ratios is the figure reported.
  const pairedRatio = (kind: 'one' | 'page', figure: 'p50Ms' | 'p99Ms') =>
    Math.round(median(runs[large]![kind].map((run, rep) => run[figure] / runs[small]![kind][rep]![figure])) * 100) /
    100;
  const latency = {
    one: { small: latencyAt(small, 'one'), large: latencyAt(large, 'one') },
    page: { small: latencyAt(small, 'page'), large: latencyAt(large, 'page') },
  };
  const ratios = {
    getOneP50: pairedRatio('one', 'p50Ms'),
    getOneP99: pairedRatio('one', 'p99Ms'),
    pageP50: pairedRatio('page', 'p50Ms'),
    pageP99: pairedRatio('page', 'p99Ms'),
  };

  // V8 lets garbage pile up while memory is plentiful, so the peak RSS of an uncapped run says little;
  // the same stream under a 64 MiB cap on the old generation shows what the list really needs.
  const streams = {
    tenth: await streamAll(tenth),
    large: await streamAll(large),
    capped: await streamAll(large, CAPPED_OLD_SPACE_MIB),
  };
  const imported = await importAtScale(Number(options.rows), log);

  const summary = {
    date: new Date().toISOString(),
    node: process.version,
    ...pace,
    reps: Number(options.reps),
    small,
    large,
    latency,
    ratios,
    runs,
    streams,
    imported,
  };
  mkdirSync(options.out, { recursive: true });
  writeFileSync(join(options.out, 'scale.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const n = (size: number) => size.toLocaleString('en');
  const ms = (value: number) => value.toFixed(2);
  const rss = (s: typeof streams.large) =>
    `${s.rssBeforeMiB.toFixed(0)} → ${s.rssPeakMiB.toFixed(0)} → ${s.rssAfterMiB.toFixed(0)}`;
  const md = [
    `Run ${summary.date.slice(0, 16)}Z, Node ${summary.node}; latency at a fixed ${pace.rate} req/s for ${pace.seconds} s, open loop, medians of ${summary.reps} alternating runs; the ratio is the median of the ${summary.reps} per-run ratios.`,
    '',
    `| | ${n(small)} products | ${n(large)} products | ratio |`,
    '| --- | ---: | ---: | ---: |',
    `| GET one, p50 / p99 ms | ${ms(latency.one.small.p50Ms)} / ${ms(latency.one.small.p99Ms)} | ${ms(latency.one.large.p50Ms)} / ${ms(latency.one.large.p99Ms)} | ${ratios.getOneP50} / ${ratios.getOneP99} |`,
    `| page of 50, p50 / p99 ms | ${ms(latency.page.small.p50Ms)} / ${ms(latency.page.small.p99Ms)} | ${ms(latency.page.large.p50Ms)} / ${ms(latency.page.large.p99Ms)} | ${ratios.pageP50} / ${ratios.pageP99} |`,
    '',
    `| GET /api/products, everything | ${n(tenth)} products | ${n(large)} products | ${n(large)}, old generation capped at ${CAPPED_OLD_SPACE_MIB} MiB |`,
    '| --- | ---: | ---: | ---: |',
    `| size, time | ${streams.tenth.megabytes.toFixed(1)} MiB in ${streams.tenth.seconds.toFixed(1)} s | ${streams.large.megabytes.toFixed(1)} MiB in ${streams.large.seconds.toFixed(1)} s | ${streams.capped.megabytes.toFixed(1)} MiB in ${streams.capped.seconds.toFixed(1)} s |`,
    `| server RSS before → peak → after, MiB | ${rss(streams.tenth)} | ${rss(streams.large)} | ${rss(streams.capped)} |`,
    '',
    importReport(imported),
  ].join('\n');
  writeFileSync(join(options.out, 'scale.md'), `${md}\n`);
  process.stdout.write(`${md}\n`);
}

try {
  if (parts.has('service')) await measureService();
} finally {
  for (const size of sizes)
    await adminQuery(`drop database if exists "${dbName(size)}" with (force)`).catch(() => undefined);
}
if (parts.has('search')) {
  const search = await measureSearch(
    small,
    Number(options.products),
    Number(options['sqlite-products']),
    { ...pace, textRate: Number(options['search-rate']) },
    Number(options.reps),
    log,
  );
  mkdirSync(options.out, { recursive: true });
  writeFileSync(join(options.out, 'scale-search.json'), `${JSON.stringify(search, null, 2)}\n`);
  writeFileSync(join(options.out, 'scale-search.md'), `${search.markdown}\n`);
  process.stdout.write(`\n${search.markdown}\n`);
}
