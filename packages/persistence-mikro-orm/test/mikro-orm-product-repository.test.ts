import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase, productRepositoryContract } from '@stock/test-kit';
import { expect } from 'chai';
import { MikroOrmPersistence } from '../src';

async function openMigrated(url: string, cleanUp: () => Promise<void>) {
  const persistence = await MikroOrmPersistence.open(url);
  await persistence.migrate();
  return {
    repository: persistence.repository,
    reset: async () => {
      await persistence.orm.em.fork().getConnection().execute('delete from product');
    },
    close: async () => {
      await persistence.close();
      await cleanUp();
    },
  };
}

describe('MikroOrmProductRepository on SQLite', () => {
  productRepositoryContract(async () => {
    const directory = mkdtempSync(join(tmpdir(), 'stock-sqlite-'));
    return openMigrated(`sqlite:${join(directory, 'stock.db')}`, async () => rmSync(directory, { recursive: true, force: true }));
  });
});

describe('MikroOrmProductRepository on PostgreSQL', () => {
  productRepositoryContract(async (context) => {
    const database = await createScratchDatabase(context);
    return openMigrated(database.url, database.drop);
  });
});

describe('MikroOrmPersistence migrations', () => {
  it('lets instances that start together migrate once, without a failure', async function () {
    const database = await createScratchDatabase(this);
    const instances = await Promise.all([1, 2, 3].map(() => MikroOrmPersistence.open(database.url)));
    try {
      const applied = await Promise.all(instances.map((instance) => instance.migrate()));
      expect(applied.flat()).to.deep.equal(['20261122-create-product']);
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
      await database.drop();
    }
  });

  it('creates the SQLite file and its folder on first start, and migrates it once', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'stock-sqlite-'));
    const url = `sqlite:${join(directory, 'nested', 'stock.db')}`;
    try {
      const first = await MikroOrmPersistence.open(url);
      expect(await first.migrate()).to.deep.equal(['20261122-create-product']);
      await first.close();
      const second = await MikroOrmPersistence.open(url);
      expect(await second.migrate()).to.deep.equal([]);
      await second.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
