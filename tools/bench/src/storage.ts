import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { adminQuery, databaseUrl } from '@platform/test-kit';
import { seedProducts } from '@tools/seed';
import type { Storage } from './targets';
import { HOT_PRODUCT_STOCK } from './workloads';

/** The scratch PostgreSQL database every bench run uses (created and dropped by the harness). */
export const BENCH_DB = 'stock_bench';

/**
 * A fresh database with `products` seeded (the first one hot), or memory: for memory targets (seed them with
 * seedOverHttp). For a target served from another checkout (`checkout`), seeded by that checkout's own seed, so its
 * schema is the one its code writes (a checkout from before issue 31 writes the ledger's triggers' side channel).
 */
export async function prepareStorage(
  storage: Storage,
  products: number,
  scratchFolder: string,
  checkout?: string,
): Promise<string> {
  if (storage === 'memory') return 'memory:';
  let url: string;
  if (storage === 'sqlite') {
    url = `sqlite:${join(scratchFolder, `stock-${Date.now()}.db`)}`;
  } else {
    await adminQuery(`drop database if exists "${BENCH_DB}" with (force)`);
    await adminQuery(`create database "${BENCH_DB}"`);
    url = databaseUrl(BENCH_DB);
  }
  if (checkout) seedAt(checkout, url, products);
  else await seedProducts(url, { count: products, firstStock: HOT_PRODUCT_STOCK });
  return url;
}

/** Seeds an in-memory target through its own API: ids 1..products, the first one hot. */
export async function seedOverHttp(base: string, products: number, token?: string): Promise<void> {
  const authorization: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  for (let i = 1; i <= products; i++) {
    const quantityInStock = i === 1 ? HOT_PRODUCT_STOCK : (i * 31) % 1000;
    const response = await fetch(`${base}/api/products`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authorization },
      body: JSON.stringify({ name: `Product ${i}`, price: 1.5, quantityInStock }),
    });
    if (response.status !== 201) throw new Error(`seeding over HTTP failed: ${response.status}`);
  }
}

/** Seeds with another checkout's seed, in a process of its own on that checkout's tsx. */
function seedAt(checkout: string, url: string, products: number): void {
  const seed = pathToFileURL(join(checkout, 'tools/seed/src/seed-products.ts')).href;
  const script = `const { seedProducts } = await import(${JSON.stringify(seed)});
    await seedProducts(${JSON.stringify(url)}, { count: ${products}, firstStock: ${HOT_PRODUCT_STOCK} });`;
  execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: checkout,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
