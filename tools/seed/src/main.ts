import { parseArgs } from 'node:util';
import { seedProducts } from './seed-products';
import { seedThroughImport } from './seed-through-import';

/**
 * pnpm seed [count] [--through-import]: loads products into DATABASE_URL (default: the service's SQLite file), with
 * multi-row inserts, or through the product import (SKUs, ledger movements, upserts) with --through-import.
 */
const { values, positionals } = parseArgs({
  options: { 'through-import': { type: 'boolean', default: false } },
  allowPositionals: true,
});
const count = Number(positionals[0] ?? 1000);
if (!Number.isInteger(count) || count < 1)
  throw new Error(`Usage: pnpm seed <count> [--through-import], not ${positionals[0]}`);
const url = process.env.DATABASE_URL ?? 'sqlite:./data/stock.db';
let last = 0;
const progress = (done: number, total: number) => {
  const percent = Math.floor((done / total) * 100);
  if (percent === last && done !== total) return;
  last = percent;
  const bar = '#'.repeat(Math.floor(percent / 2.5)).padEnd(40, '.');
  process.stderr.write(`\r[${bar}] ${percent}%  ${done.toLocaleString('en')} / ${total.toLocaleString('en')}`);
};
const started = Date.now();
if (values['through-import']) {
  const result = await seedThroughImport(url, { count, onProgress: ({ rows }) => progress(rows, count) });
  progress(count, count);
  process.stderr.write('\n');
  const { created, updated, unchanged, failed } = result;
  console.log(`Imported: ${JSON.stringify({ created, updated, unchanged, failed })}`);
} else {
  await seedProducts(url, { count, onProgress: progress });
  process.stderr.write('\n');
}
const ms = Date.now() - started;
console.log(
  `Seeded ${count.toLocaleString('en')} products in ${(ms / 1000).toFixed(1)} s (${Math.round(count / (ms / 1000)).toLocaleString('en')}/s).`,
);
