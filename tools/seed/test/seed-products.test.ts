import { openStockDatabase, SqlProductRepository, SqlStockMovementRepository } from '@stock/persistence-sql';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededProduct, seedProducts } from '../src/seed-products';

describe('seedProducts', () => {
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'stock-seed-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('migrates a new database and loads every product, in batches, reporting progress', async () => {
    const url = `sqlite:${join(directory, 'seeded.db')}`;
    const progress: number[] = [];
    await seedProducts(url, {
      count: 2_345,
      batchSize: 1_000,
      firstStock: 777,
      onProgress: (done) => progress.push(done),
    });

    expect(progress).to.deep.equal([1_000, 2_000, 2_345]);
    const database = await openStockDatabase(url);
    try {
      const products = new SqlProductRepository(database.session);
      const first = await products.findById(1);
      const last = await products.findById(2_345);
      expect(await products.findById(2_346)).to.equal(undefined);
      expect(first?.quantityInStock).to.equal(777);
      expect(last?.name).to.equal(seededProduct(2_345).name);
      expect(last?.price.cents).to.equal(seededProduct(2_345).price.cents);
      // Each opens its ledger as any new product does: one movement of its whole stock.
      const [opening, ...more] = await new SqlStockMovementRepository(database.session).list(2_345, {
        after: 0,
        limit: 10,
      });
      expect(more).to.deep.equal([]);
      expect(opening).to.include({ kind: 'created', sequence: 1, quantityDelta: last?.quantityInStock });
    } finally {
      await database.close();
    }
  });
});
