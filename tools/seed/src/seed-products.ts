import { DEFAULT_LOCATION_ID, Money, ProductDetails } from '@stock/domain';
import { openStockDatabase } from '@stock/persistence-mikro-orm';

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
 * A seeded product's stock is at the default location, as ProductRepository.add puts a new one's: the product's
 * quantity_in_stock is the sum over its levels, and a PUT or an adjustment plans from the level.
 */
const LEVELS_AT_DEFAULT = `insert into "stock_level" ("product_id", "location_id", "on_hand")
  select "id", ${DEFAULT_LOCATION_ID}, "quantity_in_stock" from "product"
  where not exists (select 1 from "stock_level" where "stock_level"."product_id" = "product"."id")`;

/** Migrates, then appends `count` products with multi-row inserts; answers how long it took. */
export async function seedProducts(
  databaseUrl: string,
  { count, batchSize = 1000, firstStock, onProgress }: SeedOptions,
): Promise<number> {
  const started = Date.now();
  // Seeding makes a database on purpose: a missing one is created.
  const database = await openStockDatabase(databaseUrl, { createDatabase: true });
  try {
    await database.migrate();
    const em = database.orm.em.fork();
    // MikroORM 7 takes the mapping itself, not its name.
    const product = database.orm.getMetadata().getByClassName('Product').class;
    for (let done = 0; done < count;) {
      const rows = [];
      for (let i = 0; i < batchSize && done + i < count; i++) {
        const details = seededProduct(done + i + 1);
        const { name, description, price } = details;
        rows.push({
          name,
          description,
          price,
          quantityInStock: done + i === 0 && firstStock !== undefined ? firstStock : details.quantityInStock,
          version: 1,
        });
      }
      await em.insertMany(product, rows);
      done += rows.length;
      onProgress?.(done, count);
    }
    await database.session.run(LEVELS_AT_DEFAULT, []);
  } finally {
    await database.close();
  }
  return Date.now() - started;
}
