import { ANONYMOUS_CALLER, Money, ProductDetails } from '@stock/domain';
import { openStockDatabase, SqlProductRepository } from '@stock/persistence-sql';

export interface SeedOptions {
  readonly count: number;
  /** Rows per INSERT statement. */
  readonly batchSize?: number;
  /** The stock of the first product seeded: the benchmark's hot product. */
  readonly firstStock?: number;
  readonly onProgress?: (done: number, total: number) => void;
}

/** Deterministic, varied products: the same seed gives the same catalogue. */
export function seededProduct(index: number): ProductDetails {
  return ProductDetails.create({
    name: `Product ${index}`,
    description: `Seeded product number ${index}, ${'a fine thing '.repeat(index % 5)}`.trim(),
    price: Money.fromCents(100 + ((index * 7919) % 1_000_000)),
    quantityInStock: (index * 31) % 1000,
  });
}

/**
 * Migrates, then appends `count` products a batch at a time through the product repository's `addMany` (one
 * statement per batch on PostgreSQL), so each gets its level at the default location and the opening movement of
 * its ledger, as any new product does; answers how long it took.
 */
export async function seedProducts(
  databaseUrl: string,
  { count, batchSize = 1000, firstStock, onProgress }: SeedOptions,
): Promise<number> {
  const started = Date.now();
  // Seeding makes a database on purpose: a missing one is created.
  const database = await openStockDatabase(databaseUrl, { createDatabase: true });
  try {
    await database.migrate();
    const context = { at: new Date(), reason: 'seeded', actor: ANONYMOUS_CALLER };
    for (let done = 0; done < count;) {
      const batch: ProductDetails[] = [];
      for (let i = 0; i < batchSize && done + i < count; i++) {
        const details = seededProduct(done + i + 1);
        batch.push(done + i === 0 && firstStock !== undefined ? details.withQuantityInStock(firstStock) : details);
      }
      await database.transaction((session) => new SqlProductRepository(session).addMany(batch, context));
      done += batch.length;
      onProgress?.(done, count);
    }
  } finally {
    await database.close();
  }
  return Date.now() - started;
}
