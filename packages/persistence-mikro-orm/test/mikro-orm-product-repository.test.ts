import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTRACT_TTL_MS, createScratchDatabase, idempotencyStoreContract, productRepositoryContract } from '@stock/test-kit';
import { expect } from 'chai';
import { MikroOrmIdempotencyStore, MikroOrmPersistence } from '../src';
import { postgresqlMigrations } from '../src/migrations/postgresql';
import { sqliteMigrations } from '../src/migrations/sqlite';

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

async function openIdempotency(url: string, now: () => number, cleanUp: () => Promise<void>) {
  const persistence = await MikroOrmPersistence.open(url);
  await persistence.migrate();
  return {
    store: new MikroOrmIdempotencyStore(persistence.orm, CONTRACT_TTL_MS, now),
    repository: persistence.repository,
    close: async () => {
      await persistence.close();
      await cleanUp();
    },
  };
}

describe('MikroOrmIdempotencyStore on SQLite', () => {
  idempotencyStoreContract(async (_context, now) => {
    const directory = mkdtempSync(join(tmpdir(), 'stock-sqlite-'));
    return openIdempotency(`sqlite:${join(directory, 'stock.db')}`, now, async () => rmSync(directory, { recursive: true, force: true }));
  }, { transactional: true });
});

describe('MikroOrmIdempotencyStore on PostgreSQL', () => {
  idempotencyStoreContract(async (context, now) => {
    const database = await createScratchDatabase(context);
    return openIdempotency(database.url, now, database.drop);
  }, { transactional: true });
});

describe('MikroOrmPersistence migrations', () => {
  it('lets instances that start together migrate once, without a failure', async function () {
    const database = await createScratchDatabase(this);
    const instances = await Promise.all([1, 2, 3].map(() => MikroOrmPersistence.open(database.url)));
    try {
      const applied = await Promise.all(instances.map((instance) => instance.migrate()));
      expect(applied.flat()).to.deep.equal(postgresqlMigrations.map((m) => m.name));
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
      expect(await first.migrate()).to.deep.equal(sqliteMigrations.map((m) => m.name));
      await first.close();
      const second = await MikroOrmPersistence.open(url);
      expect(await second.migrate()).to.deep.equal([]);
      await second.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
