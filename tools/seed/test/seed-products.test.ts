import { MikroOrmProductRepository, openStockDatabase } from '@stock/persistence-mikro-orm';
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
      const products = new MikroOrmProductRepository(database.session);
      const first = await products.findById(1);
      const last = await products.findById(2_345);
      expect(await products.findById(2_346)).to.equal(undefined);
      expect(first?.quantityInStock).to.equal(777);
      expect(last?.name).to.equal(seededProduct(2_345).name);
      expect(last?.price.cents).to.equal(seededProduct(2_345).price.cents);
    } finally {
      await database.close();
    }
  });
});
