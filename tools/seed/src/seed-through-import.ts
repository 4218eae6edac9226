import { DEFAULT_IMPORT_SETTINGS, type ImportProgress, type ImportResult, ImportProducts } from '@stock/application';
import { SqlUnitOfWork, openStockDatabase } from '@stock/persistence-sql';
import { seededProduct } from './seed-products';

/** A day: the seed's import records no key, so the records' time to live does not matter. */
const IDEMPOTENCY_TTL_MS = 86_400_000;

/** The seeded products as import rows: each keyed by its SKU, so seeding again updates rather than duplicates. */
async function* seededRows(count: number) {
  for (let index = 1; index <= count; index++) {
    const { name, description, price, quantityInStock } = seededProduct(index);
    yield { sku: `SEED-${index}`, name, description, price: price.toString(), onHand: String(quantityInStock) };
  }
}

/**
 * Loads the seeded products through the product import (ImportProducts, as
 * POST /api/product-imports does): every product with a SKU, its stock an
 * `imported` movement of the ledger, 500 rows per transaction. Slower than
 * the multi-row inserts, and the path a merchant's catalogue takes.
 */
export async function seedThroughImport(
  databaseUrl: string,
  { count, onProgress }: { count: number; onProgress?: (progress: ImportProgress) => void },
): Promise<ImportResult> {
  const database = await openStockDatabase(databaseUrl, { createDatabase: true });
  try {
    await database.migrate();
    const importer = new ImportProducts(
      new SqlUnitOfWork(database, { idempotencyTtlMs: IDEMPOTENCY_TTL_MS }),
      () => new Date(),
      {
        ...DEFAULT_IMPORT_SETTINGS,
        progressEvery: 1000,
      },
    );
    const { value } = await importer.execute(seededRows(count), { ...(onProgress && { onProgress }) });
    return value;
  } finally {
    await database.close();
  }
}
