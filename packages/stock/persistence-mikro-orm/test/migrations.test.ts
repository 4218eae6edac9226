import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase } from '@platform/test-kit';
import { expect } from 'chai';
import { openStockDatabase } from '../src';
import { postgresqlMigrations } from '../src/migrations/postgresql';
import { sqliteMigrations } from '../src/migrations/sqlite';
import { scratchUrl } from './scratch-stores';

describe('stock migrations', () => {
  it('lets instances that start together on PostgreSQL migrate once, without a failure', async function () {
    const database = await createScratchDatabase(this);
    const instances = await Promise.all([1, 2, 3].map(() => openStockDatabase(database.url)));
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
      const first = await openStockDatabase(url, { createDatabase: true });
      expect(await first.migrate()).to.deep.equal(sqliteMigrations.map((m) => m.name));
      await first.close();
      const second = await openStockDatabase(url);
      expect(await second.migrate()).to.deep.equal([]);
      await second.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  for (const dialect of ['sqlite', 'postgresql'] as const) {
    describe(`on ${dialect}`, () => {
      it('leave nothing for the schema generator to change: the mapping and the migrations agree', async function () {
        const { url, cleanUp } = await scratchUrl(dialect, this);
        const database = await openStockDatabase(url, { createDatabase: true });
        try {
          await database.migrate();
          const drift = await database.orm.schema.getUpdateSchemaSQL({ wrap: false });
          expect(drift.trim()).to.equal('');
        } finally {
          await database.close();
          await cleanUp();
        }
      });

      it('turn recorded HTTP responses into recorded products, so retries across the upgrade still replay', async function () {
        const { url, cleanUp } = await scratchUrl(dialect, this);
        const database = await openStockDatabase(url, { createDatabase: true });
        try {
          await database.orm.migrator.up({ to: '20261122-version-and-idempotency-keys' });
          const body = JSON.stringify({ id: 7, name: 'Desk lamp', description: 'Warm light', price: 39.9, quantityInStock: 12 });
          const insert = 'insert into "idempotency_key" ("scope", "key", "fingerprint", "status", "headers", "body", "expires_at") values (?, ?, ?, ?, ?, ?, ?)';
          await database.session.run(insert, ['POST /api/products', 'k1', 'f1', 201, JSON.stringify({ ETag: '"3"', Location: '/api/products/7' }), body, Date.now() + 60_000]);
          await database.session.run(insert, ['POST /api/products/{id}/stock-adjustments', 'k2', 'f2', 200, JSON.stringify({ ETag: '"4"' }), body, Date.now() + 60_000]);
          await database.session.run(insert, ['POST /api/products', 'k3', 'f3', null, null, null, Date.now() + 60_000]);
          await database.migrate();
          const rows = await database.session.all<{ scope: string; key: string; result: string }>('select "scope", "key", "result" from "idempotency_key" order by "key"');
          expect(rows.map((r) => [r.scope, r.key, JSON.parse(r.result)])).to.deep.equal([
            ['create-product', 'k1', { id: 7, name: 'Desk lamp', description: 'Warm light', priceCents: 3990, quantityInStock: 12, version: 3 }],
            ['adjust-stock', 'k2', { id: 7, name: 'Desk lamp', description: 'Warm light', priceCents: 3990, quantityInStock: 12, version: 4 }],
          ]);
        } finally {
          await database.close();
          await cleanUp();
        }
      });
    });
  }
});
