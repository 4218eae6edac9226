import { join } from 'node:path';
import { adminQuery, databaseUrl } from '@platform/test-kit';
import { seedProducts } from '@tools/seed';
import type { Storage } from './targets';
import { HOT_PRODUCT_STOCK } from './workloads';

/** The scratch PostgreSQL database every bench run uses (created and dropped by the harness). */
export const BENCH_DB = 'stock_bench';

/**
 * A fresh database with `products` seeded (the first one hot), or memory: for memory targets (seed them with
 * seedOverHttp).
 */
export async function prepareStorage(storage: Storage, products: number, scratchFolder: string): Promise<string> {
  if (storage === 'memory') return 'memory:';
  let url: string;
  if (storage === 'sqlite') {
    url = `sqlite:${join(scratchFolder, `stock-${Date.now()}.db`)}`;
  } else {
    await adminQuery(`drop database if exists "${BENCH_DB}" with (force)`);
    await adminQuery(`create database "${BENCH_DB}"`);
    url = databaseUrl(BENCH_DB);
  }
  await seedProducts(url, { count: products, firstStock: HOT_PRODUCT_STOCK });
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
