import {
  aContext,
  aLocation,
  aProduct,
  expectLedgersToSum,
  levelsOf,
  type StockStoreUnderTest,
} from '@stock/domain/testing';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase, scratchUrl } from '@platform/test-kit';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { ANONYMOUS_CALLER, DEFAULT_LOCATION_ID, type Reservation } from '@stock/domain';
import {
  SqlLocationRepository,
  SqlProductRepository,
  SqlReservationRepository,
  SqlProductStockRepository,
  SqlStockMovementRepository,
  openStockDatabase,
} from '../src';
import { STOCK_MIGRATIONS } from '../src/migrations';

chai.use(chaiAsPromised);
const { expect } = chai;

/** The last migration of the history, written by hand per dialect (src/migrations/history/). */
const LAST_OF_HISTORY = '20261125-webhook-event-trace-context';
/** `pnpm db:migration`: the next migration, generated from the tables' description. */
const GENERATOR = join(import.meta.dirname, '../scripts/generate-migration.ts');

/** The states a level gained after these migrations (issue 33): none of the migrated units is in any of them. */
const NO_OTHER_STATE = { committed: 0, qualityControl: 0, damaged: 0, incoming: 0 };

describe('stock migrations', () => {
  it('lets instances that start together on PostgreSQL migrate once, without a failure', async function () {
    const database = await createScratchDatabase(this);
    const instances = await Promise.all([1, 2, 3].map(() => openStockDatabase(database.url)));
    try {
      const applied = await Promise.all(instances.map((instance) => instance.migrate()));
      expect(applied.flat()).to.deep.equal(STOCK_MIGRATIONS.postgresql.map((m) => m.name));
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
      expect(await first.migrate()).to.deep.equal(STOCK_MIGRATIONS.sqlite.map((m) => m.name));
      await first.close();
      const second = await openStockDatabase(url);
      expect(await second.migrate()).to.deep.equal([]);
      await second.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('see on PostgreSQL a trigger nobody declared as drift, and none once it is gone', async function () {
    const scratch = await createScratchDatabase(this);
    const database = await openStockDatabase(scratch.url);
    const drift = async () => (await database.orm.schema.getUpdateSchemaSQL({ wrap: false })).trim();
    try {
      await database.migrate();
      await database.session.run(
        'create function "stray_movement"() returns trigger language plpgsql as $$ begin return new; end $$',
      );
      await database.session.run(
        'create trigger "stray_movement" after update on "product" for each row execute function "stray_movement"()',
      );
      expect(await drift()).to.match(/^drop trigger if exists "stray_movement" on "product";/);
      await database.session.run('drop trigger "stray_movement" on "product"');
      await database.session.run('drop function "stray_movement"()');
      expect(await drift()).to.equal('');
    } finally {
      await database.close();
      await scratch.drop();
    }
  });

  it('leave nothing for `pnpm db:migration` to generate, on SQLite or PostgreSQL', async function () {
    this.timeout(60_000);
    // The generator migrates a scratch database on the PostgreSQL server: skipped, as the suites are, without one.
    await (await createScratchDatabase(this)).drop();
    const out = mkdtempSync(join(tmpdir(), 'stock-generated-'));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [
        ...process.execArgv,
        GENERATOR,
        'nothing-left',
        '--out',
        out,
      ]);
      expect(stdout.trim().split('\n')).to.deep.equal([
        'sqlite: the mapping and the migrations agree; nothing to generate',
        'postgresql: the mapping and the migrations agree; nothing to generate',
      ]);
      expect(readdirSync(out)).to.deep.equal([]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  for (const dialect of ['sqlite', 'postgresql'] as const) {
    describe(`on ${dialect}`, () => {
      it('leave nothing for the schema generator to change: the mapping and the migrations agree', async function () {
        const { url, cleanUp } = await scratchUrl(dialect, this, 'stock');
        const database = await openStockDatabase(url, { createDatabase: true });
        try {
          await database.migrate();
          const drift = await database.orm.schema.getUpdateSchemaSQL({ wrap: false });
          expect(drift.trim()).to.equal('');
          // SQLite's triggers are left out of that comparison (the search index's, which no mapping describes): the
          // migrations leave those alone.
          if (dialect === 'sqlite')
            expect(
              await database.session.all(`select "name" from "sqlite_master" where "type" = 'trigger' order by 1`),
            ).to.deep.equal([
              { name: 'product_search_delete' },
              { name: 'product_search_insert' },
              { name: 'product_search_update' },
            ]);
        } finally {
          await database.close();
          await cleanUp();
        }
      });

      it('give the holds made before owners to the anonymous caller and leave orders’ holds ownerless; references are then unique per owner, and movements say whom they were made for', async function () {
        const { url, cleanUp } = await scratchUrl(dialect, this, 'stock');
        const database = await openStockDatabase(url, { createDatabase: true });
        const at = (iso: string) => (dialect === 'postgresql' ? iso : Date.parse(iso));
        const insert =
          'insert into "reservation" ("id", "reference", "origin", "status", "lines", "expires_at", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?)';
        const row = (id: string, reference: string, origin: string) => [
          id,
          reference,
          origin,
          'held',
          '[]',
          at('2026-11-24T10:15:00Z'),
          at('2026-11-24T10:00:00Z'),
          at('2026-11-24T10:00:00Z'),
        ];
        try {
          await database.orm.migrator.up({ to: '20261124-reservation-origin' });
          await database.session.run(insert, row('00000000-0000-4000-8000-000000000001', 'order-1042', 'api'));
          await database.session.run(
            insert,
            row('00000000-0000-4000-8000-000000000002', '6a0b7c1e-0000-4000-8000-000000000000', 'order'),
          );
          await database.migrate();
          const reservations = new SqlReservationRepository(database.session);
          expect(await reservations.findByReference(ANONYMOUS_CALLER, 'order-1042')).to.include({
            id: '00000000-0000-4000-8000-000000000001',
            owner: ANONYMOUS_CALLER,
          });
          expect(await reservations.findForOrder('6a0b7c1e-0000-4000-8000-000000000000'))
            .to.include({ id: '00000000-0000-4000-8000-000000000002' })
            .and.not.to.have.property('owner');
          const claim = (id: string, owner: string | undefined, reference: string) => {
            const now = new Date();
            const reservation: Reservation = {
              id,
              reference,
              origin: owner === undefined ? 'order' : 'api',
              ...(owner !== undefined && { owner }),
              status: 'held',
              lines: [],
              expiresAt: now,
              createdAt: now,
              updatedAt: now,
            };
            return database.transaction((session) => new SqlReservationRepository(session).claim(reservation));
          };
          expect(
            await claim('00000000-0000-4000-8000-000000000003', 'shop-a', 'order-1042'),
            'another owner’s reference',
          ).to.equal('claimed');
          expect(
            await claim('00000000-0000-4000-8000-000000000004', ANONYMOUS_CALLER, 'order-1042'),
            'the same owner’s',
          ).to.equal('taken');
          expect(
            await claim('00000000-0000-4000-8000-000000000005', undefined, 'order-1042'),
            'an order’s, apart from callers’',
          ).to.equal('claimed');
          expect(
            await claim('00000000-0000-4000-8000-000000000006', undefined, 'order-1042'),
            'the same order’s',
          ).to.equal('taken');
          const product = await database.transaction((session) =>
            new SqlProductRepository(session).add(aProduct(), {
              at: new Date(),
              actor: 'shop-a',
              requestId: 'r1',
            }),
          );
          const [movement] = await new SqlStockMovementRepository(database.session).list(product.id, {
            after: 0,
            limit: 1,
          });
          expect(movement).to.include({ actor: 'shop-a', requestId: 'r1' });
        } finally {
          await database.close();
          await cleanUp();
        }
      });

      it('move every product’s stock, holds and movements to the default location, and held lines to allocations there, answering the same totals', async function () {
        const { url, cleanUp } = await scratchUrl(dialect, this, 'stock');
        const database = await openStockDatabase(url, { createDatabase: true });
        const session = database.session;
        const at = (iso: string) => (dialect === 'postgresql' ? iso : Date.parse(iso));
        const context = (kind: 'created' | 'adjusted' | 'reserved') =>
          JSON.stringify({ kind, at: '2026-11-26T10:00:00.000Z', atMs: Date.parse('2026-11-26T10:00:00Z') });
        try {
          await database.orm.migrator.up({ to: '20261125-stock-movement-actor' });
          // The writes of the service before locations, as it sent them: the trigger appends their movements.
          const price = dialect === 'postgresql' ? 'price' : 'price_cents';
          const ids: number[] = [];
          for (const stock of [12, 0, 40]) {
            const [row] = await session.all<{ id: number }>(
              `insert into "product" ("name", "description", "${price}", "quantity_in_stock", "write_context") values ('Lamp', '', 1000, ?, ?) returning "id"`,
              [stock, context('created')],
            );
            ids.push(Number(row!.id));
          }
          const [lamp, empty, desk] = ids as [number, number, number];
          const write = (sql: string, params: unknown[]) => session.run(`update "product" set ${sql}`, params);
          await write(`"quantity_in_stock" = "quantity_in_stock" + 5, "write_context" = ? where "id" = ?`, [
            context('adjusted'),
            lamp,
          ]);
          await write(`"reserved_quantity" = "reserved_quantity" + ?, "write_context" = ? where "id" = ?`, [
            3,
            context('reserved'),
            lamp,
          ]);
          await write(`"reserved_quantity" = "reserved_quantity" + ?, "write_context" = ? where "id" = ?`, [
            7,
            context('reserved'),
            desk,
          ]);
          const insert =
            'insert into "reservation" ("id", "reference", "origin", "owner", "status", "lines", "expires_at", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?)';
          const times = [at('2026-11-26T10:15:00Z'), at('2026-11-26T10:00:00Z'), at('2026-11-26T10:00:00Z')];
          const held = '00000000-0000-4000-8000-000000000011';
          await session.run(insert, [
            held,
            'order-7',
            'api',
            ANONYMOUS_CALLER,
            'held',
            JSON.stringify([
              { productId: lamp, quantity: 3 },
              { productId: desk, quantity: 7 },
            ]),
            ...times,
          ]);
          const rejected = '00000000-0000-4000-8000-000000000012';
          await session.run(insert, [
            rejected,
            'order-8',
            'api',
            ANONYMOUS_CALLER,
            'rejected',
            JSON.stringify([{ productId: lamp, quantity: 99 }]),
            ...times,
          ]);
          const before = await session.all(
            'select "id", "quantity_in_stock", "reserved_quantity" from "product" order by "id"',
          );
          const applied = await database.migrate();
          expect(applied).to.include('20261125-stock-by-location');

          const products = new SqlProductRepository(session);
          const after = await products.findMany(ids);
          expect(after.map((p) => [p.id, p.quantityInStock, p.reservedQuantity])).to.deep.equal(
            before.map((p) => [Number(p.id), Number(p.quantity_in_stock), Number(p.reserved_quantity)]),
          );
          expect(after.map((p) => p.availableQuantity)).to.deep.equal([14, 0, 33]);
          expect(
            after.map((p) => [p.backorderLimit, p.backorderedQuantity, p.lowStockThreshold, p.stockState]),
          ).to.deep.equal([
            [0, 0, 0, 'in'],
            [0, 0, 0, 'out'],
            [0, 0, 0, 'in'],
          ]);
          const store = {
            products,
            stock: new SqlProductStockRepository(session),
            movements: new SqlStockMovementRepository(session),
          } as unknown as StockStoreUnderTest;
          expect(await levelsOf(store, lamp)).to.deep.equal([
            { locationId: DEFAULT_LOCATION_ID, onHand: 17, reserved: 3, ...NO_OTHER_STATE },
          ]);
          expect(await levelsOf(store, empty)).to.deep.equal([
            { locationId: DEFAULT_LOCATION_ID, onHand: 0, reserved: 0, ...NO_OTHER_STATE },
          ]);
          expect(await new SqlLocationRepository(session).list()).to.deep.equal([
            { id: DEFAULT_LOCATION_ID, code: 'default', name: 'Default', priority: 0 },
          ]);
          const ledger = await store.movements.list(lamp, { after: 0, limit: 10 });
          expect(ledger.map((m) => [m.kind, m.locationId, m.quantityDelta, m.reservedDelta])).to.deep.equal([
            ['created', 1, 12, 0],
            ['adjusted', 1, 5, 0],
            ['reserved', 1, 0, 3],
          ]);
          await expectLedgersToSum(store, after);

          const reservations = new SqlReservationRepository(session);
          expect((await reservations.findById(held))!.lines).to.deep.equal([
            { productId: lamp, quantity: 3, allocations: [{ locationId: 1, quantity: 3 }], backorderedQuantity: 0 },
            { productId: desk, quantity: 7, allocations: [{ locationId: 1, quantity: 7 }], backorderedQuantity: 0 },
          ]);
          expect((await reservations.findById(rejected))!.lines).to.deep.equal([{ productId: lamp, quantity: 99 }]);
          expect(await reservations.holdOf(held, desk)).to.deep.equal({
            allocations: [{ locationId: 1, quantity: 7 }],
            backordered: 0,
          });

          // A new location takes the next id, and a new product has its level at the default one with its movement.
          const levels = new SqlProductStockRepository(session);
          const location = await database.transaction((tx) =>
            new SqlLocationRepository(tx).add(aLocation({ code: 'shop' })),
          );
          expect(location).to.include({ id: 2, code: 'shop' });
          const added = await database.transaction((tx) =>
            new SqlProductRepository(tx).add(aProduct({ quantityInStock: 4 }), aContext()),
          );
          expect(await levels.list(added.id)).to.deep.equal([
            {
              locationId: 1,
              locationCode: 'default',
              onHand: 4,
              reserved: 0,
              committed: 0,
              qualityControl: 0,
              damaged: 0,
              incoming: 0,
            },
          ]);
          await expectLedgersToSum(store, [added]);
        } finally {
          await database.close();
          await cleanUp();
        }
      });

      it('undo the owners, actors and locations while no two holds share a reference, and redo them', async function () {
        const { url, cleanUp } = await scratchUrl(dialect, this, 'stock');
        const database = await openStockDatabase(url, { createDatabase: true });
        try {
          // The history's last: below the ledger triggers' drop there is no way down (the next test).
          await database.orm.migrator.up({ to: LAST_OF_HISTORY });
          // MikroORM 7's migrator stops at `to` and keeps it (6's, on umzug, undid it too): down to the migration
          // before the owners.
          await database.orm.migrator.down({ to: '20261124-reservation-origin' });
          // A product as the service wrote it then (the repository writes the columns of today).
          const [row] = await database.session.all<{ id: number }>(
            `insert into "product" ("name", "description", "${dialect === 'postgresql' ? 'price' : 'price_cents'}", "quantity_in_stock") values ('Lamp', '', 1000, 3) returning "id"`,
          );
          const product = { id: Number(row!.id) };
          const all = STOCK_MIGRATIONS[dialect];
          const later = all.length - 1 - all.findIndex((m) => m.name === '20261124-reservation-origin');
          expect(await database.orm.migrator.up()).to.have.length(later);
          expect(
            await new SqlStockMovementRepository(database.session).list(product.id, { after: 0, limit: 1 }),
          ).to.have.length(1);
        } finally {
          await database.close();
          await cleanUp();
        }
      });

      it('refuse to undo the named stock states (the first step down, before the ledger triggers’ drop), and leave the database at its last migration', async function () {
        const { url, cleanUp } = await scratchUrl(dialect, this, 'stock');
        const database = await openStockDatabase(url, { createDatabase: true });
        const executed = async () => (await database.orm.migrator.getExecuted()).map((m) => m.name);
        try {
          await database.migrate();
          await expect(database.orm.migrator.down({ to: LAST_OF_HISTORY })).to.be.rejectedWith(
            'The named stock states are not undone',
          );

          expect(await executed()).to.deep.equal(STOCK_MIGRATIONS[dialect].map((m) => m.name));
          expect((await database.orm.schema.getUpdateSchemaSQL({ wrap: false })).trim()).to.equal('');
        } finally {
          await database.close();
          await cleanUp();
        }
      });

      it('turn recorded HTTP responses into recorded products, so retries across the upgrade still replay', async function () {
        const { url, cleanUp } = await scratchUrl(dialect, this, 'stock');
        const database = await openStockDatabase(url, { createDatabase: true });
        try {
          await database.orm.migrator.up({ to: '20261122-version-and-idempotency-keys' });
          const body = JSON.stringify({
            id: 7,
            name: 'Desk lamp',
            description: 'Warm light',
            price: 39.9,
            quantityInStock: 12,
          });
          const insert =
            'insert into "idempotency_key" ("scope", "key", "fingerprint", "status", "headers", "body", "expires_at") values (?, ?, ?, ?, ?, ?, ?)';
          await database.session.run(insert, [
            'POST /api/products',
            'k1',
            'f1',
            201,
            JSON.stringify({ ETag: '"3"', Location: '/api/products/7' }),
            body,
            Date.now() + 60_000,
          ]);
          await database.session.run(insert, [
            'POST /api/products/{id}/stock-adjustments',
            'k2',
            'f2',
            200,
            JSON.stringify({ ETag: '"4"' }),
            body,
            Date.now() + 60_000,
          ]);
          await database.session.run(insert, ['POST /api/products', 'k3', 'f3', null, null, null, Date.now() + 60_000]);
          await database.migrate();
          const rows = await database.session.all<{ scope: string; key: string; result: string }>(
            'select "scope", "key", "result" from "idempotency_key" order by "key"',
          );
          expect(rows.map((r): unknown[] => [r.scope, r.key, JSON.parse(r.result)])).to.deep.equal([
            [
              'create-product',
              'k1',
              {
                id: 7,
                name: 'Desk lamp',
                description: 'Warm light',
                priceCents: 3990,
                quantityInStock: 12,
                version: 3,
              },
            ],
            [
              'adjust-stock',
              'k2',
              {
                id: 7,
                name: 'Desk lamp',
                description: 'Warm light',
                priceCents: 3990,
                quantityInStock: 12,
                version: 4,
              },
            ],
          ]);
        } finally {
          await database.close();
          await cleanUp();
        }
      });
    });
  }
});
