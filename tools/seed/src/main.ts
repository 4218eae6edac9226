import { seedProducts } from './seed-products';

/** pnpm seed [count]: loads products into DATABASE_URL (default: the service's SQLite file). */
const count = Number(process.argv[2] ?? 1000);
if (!Number.isInteger(count) || count < 1) throw new Error(`Usage: pnpm seed <count>, not ${process.argv[2]}`);
const url = process.env.DATABASE_URL ?? 'sqlite:./data/stock.db';
let last = 0;
const ms = await seedProducts(url, {
  count,
  onProgress(done, total) {
    const percent = Math.floor((done / total) * 100);
    if (percent === last && done !== total) return;
    last = percent;
    const bar = '#'.repeat(Math.floor(percent / 2.5)).padEnd(40, '.');
    process.stderr.write(`\r[${bar}] ${percent}%  ${done.toLocaleString('en')} / ${total.toLocaleString('en')}`);
  },
});
process.stderr.write('\n');
console.log(
  `Seeded ${count.toLocaleString('en')} products in ${(ms / 1000).toFixed(1)} s (${Math.round(count / (ms / 1000)).toLocaleString('en')}/s).`,
);
