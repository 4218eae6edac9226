import autocannon from 'autocannon';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { seedProducts } from '@stock/seed';
import { POSTGRES_ADMIN_URL } from '@stock/test-kit';
import { rssMiB, startTarget, stop } from './target-process';

/**
 * The service on PostgreSQL at 1,000 products, then at a million: latency of
 * GET one and of a keyset page at a fixed rate, and the whole list streamed
 * with the server's memory watched.
 */
const { values: options } = parseArgs({
  options: {
    small: { type: 'string', default: '1000' },
    large: { type: 'string', default: '1000000' },
    rate: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '10' },
    out: { type: 'string', default: 'bench-results' },
  },
});
const DB = 'stock_scale';
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)}  ${line}\n`);

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function latency(base: string, products: number, kind: 'one' | 'page') {
  const path = () => (kind === 'one' ? `/api/products/${1 + Math.floor(Math.random() * products)}` : `/api/products?limit=50&after=${Math.floor(Math.random() * (products - 50))}`);
  const result = await autocannon({
    url: base,
    connections: 16,
    overallRate: Number(options.rate),
    amount: Number(options.rate) * Number(options.seconds),
    requests: [{ method: 'GET', setupRequest: (r) => ({ ...r, path: path() }) }],
  });
  if (result.non2xx + result.errors > 0) throw new Error(`${kind}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { p50Ms: result.latency.p50, p90Ms: result.latency.p90, p99Ms: result.latency.p99, meanMs: result.latency.average };
}

async function measureAt(url: string, products: number, streamAll: boolean) {
  const { child, base } = await startTarget('service.ts', url, '10');
  try {
    await autocannon({ url: base, connections: 8, amount: 2000, requests: [{ method: 'GET', path: '/api/products/1' }] }); // warm-up
    const one = await latency(base, products, 'one');
    log(`  ${products.toLocaleString('en')} products · GET one: p50 ${one.p50Ms} ms, p99 ${one.p99Ms} ms`);
    const page = await latency(base, products, 'page');
    log(`  ${products.toLocaleString('en')} products · page of 50: p50 ${page.p50Ms} ms, p99 ${page.p99Ms} ms`);
    let stream;
    if (streamAll) {
      const rssBefore = rssMiB(child.pid!);
      let peak = rssBefore;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(child.pid!))), 50);
      const started = performance.now();
      const response = await fetch(`${base}/api/products`);
      let bytes = 0;
      let count = 0;
      const decoder = new TextDecoder();
      const marker = '"quantityInStock"';
      let carry = ''; // shorter than the marker, so a marker split across chunks is counted once
      for await (const chunk of response.body!) {
        bytes += chunk.byteLength;
        const text = carry + decoder.decode(chunk, { stream: true });
        count += text.split(marker).length - 1;
        carry = text.slice(-(marker.length - 1));
      }
      clearInterval(sampler);
      stream = { products: count, megabytes: bytes / 2 ** 20, seconds: (performance.now() - started) / 1000, rssBeforeMiB: rssBefore, rssPeakMiB: peak, rssAfterMiB: rssMiB(child.pid!) };
      log(`  streamed ${count.toLocaleString('en')} products (${stream.megabytes.toFixed(0)} MiB) in ${stream.seconds.toFixed(1)} s; RSS ${rssBefore.toFixed(0)} → peak ${peak.toFixed(0)} → ${stream.rssAfterMiB.toFixed(0)} MiB`);
      if (count !== products) throw new Error(`streamed ${count} products of ${products}`);
    }
    return { products, one, page, ...(stream && { stream }) };
  } finally {
    await stop(child);
  }
}

await admin(`drop database if exists "${DB}" with (force)`);
await admin(`create database "${DB}"`);
const location = new URL(POSTGRES_ADMIN_URL);
location.pathname = `/${DB}`;
const url = location.toString();
const small = Number(options.small);
const large = Number(options.large);
try {
  log(`seeding ${small.toLocaleString('en')} products`);
  await seedProducts(url, { count: small });
  const before = await measureAt(url, small, true);
  log(`seeding up to ${large.toLocaleString('en')} products`);
  let shown = 0;
  const seedMs = await seedProducts(url, {
    count: large - small,
    batchSize: 5000,
    onProgress(done, total) {
      const percent = Math.floor((done / total) * 100);
      if (percent >= shown + 10 || done === total) log(`  seeded ${percent}%`), (shown = percent);
    },
  });
  await admin(`vacuum analyze`).catch(() => undefined);
  const after = await measureAt(url, large, true);
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  const summary = {
    date: new Date().toISOString(),
    rate: Number(options.rate),
    seedSeconds: seedMs / 1000,
    before,
    after,
    ratios: {
      getOneP50: ratio(after.one.p50Ms, before.one.p50Ms),
      getOneP99: ratio(after.one.p99Ms, before.one.p99Ms),
      pageP50: ratio(after.page.p50Ms, before.page.p50Ms),
      pageP99: ratio(after.page.p99Ms, before.page.p99Ms),
    },
  };
  mkdirSync(options.out, { recursive: true });
  writeFileSync(join(options.out, 'scale.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const md = [
    `| at a fixed ${summary.rate} req/s | ${small.toLocaleString('en')} products | ${large.toLocaleString('en')} products | ratio |`,
    '| --- | ---: | ---: | ---: |',
    `| GET one, p50 / p99 ms | ${before.one.p50Ms} / ${before.one.p99Ms} | ${after.one.p50Ms} / ${after.one.p99Ms} | ${summary.ratios.getOneP50} / ${summary.ratios.getOneP99} |`,
    `| page of 50, p50 / p99 ms | ${before.page.p50Ms} / ${before.page.p99Ms} | ${after.page.p50Ms} / ${after.page.p99Ms} | ${summary.ratios.pageP50} / ${summary.ratios.pageP99} |`,
    `| GET /api/products (all), server RSS before → peak → after, MiB | ${before.stream!.rssBeforeMiB.toFixed(0)} → ${before.stream!.rssPeakMiB.toFixed(0)} → ${before.stream!.rssAfterMiB.toFixed(0)} | ${after.stream!.rssBeforeMiB.toFixed(0)} → ${after.stream!.rssPeakMiB.toFixed(0)} → ${after.stream!.rssAfterMiB.toFixed(0)} | |`,
    `| GET /api/products (all), size and time | ${before.stream!.megabytes.toFixed(1)} MiB in ${before.stream!.seconds.toFixed(2)} s | ${after.stream!.megabytes.toFixed(0)} MiB in ${after.stream!.seconds.toFixed(1)} s | |`,
  ].join('\n');
  writeFileSync(join(options.out, 'scale.md'), `${md}\n`);
  process.stdout.write(`${md}\n`);
} finally {
  await admin(`drop database if exists "${DB}" with (force)`).catch(() => undefined);
}
