import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Database, parseDatabaseUrl, type SqlSession } from '@platform/persistence';
import { adminQuery, scratchUrl } from '@platform/test-kit';
import { AdjustStock, CommitReservation, CreateProduct, Locations, ReserveStock } from '@stock/application';
import { LocationDraft, Money, ProductDetails, ReservationRequest, StockAdjustment } from '@stock/domain';
import { expect } from 'chai';
import { SqlProductRepository, SqlReservationRepository, SqlUnitOfWork, openStockDatabase } from '../src';
import { STOCK_MIGRATIONS } from '../src/migrations';

/**
 * The stock database as the code of 2026-11-25 left it (fixtures/README.md), loaded, migrated to today's schema, and
 * found whole: every row, every sequence, every balance, and the ledger summing to every level; then used by today's
 * code, which appends the ledger itself where triggers did.
 */

/** The driver the platform opens SQLite with: the dump has many statements, which only its `exec` runs at once. */
const BetterSqlite3 = createRequire(import.meta.resolve('@platform/persistence'))('better-sqlite3') as new (
  file: string,
) => { exec(sql: string): unknown; close(): unknown };

const LAST_OF_HISTORY = '20261125-webhook-event-trace-context';
/** The migrations after the history, of a dialect: what the fixture has still to run. */
function forwardOf(dialect: 'sqlite' | 'postgresql'): string[] {
  const names = STOCK_MIGRATIONS[dialect].map(({ name }) => name);
  return names.slice(names.indexOf(LAST_OF_HISTORY) + 1);
}

/** What the fixture holds, on either dialect (fixtures/README.md). */
const FIXTURE_ROWS: Record<string, number> = {
  idempotency_key: 12,
  location: 4,
  mikro_orm_migrations: 15,
  outbox_message: 83,
  product: 12,
  reservation: 16,
  reservation_allocation: 17,
  reservation_backorder: 3,
  stock_level: 25,
  stock_movement: 62,
  stock_transfer: 3,
  webhook_attempt: 47,
  webhook_delivery: 95,
  webhook_event: 78,
  webhook_subscription: 2,
};
const FIXTURE_SEQUENCES = {
  sqlite: {
    location: 5,
    mikro_orm_migrations: 15,
    product: 13,
    stock_movement: 62,
    webhook_attempt: 47,
    webhook_delivery: 95,
  },
  postgresql: {
    location_id_seq: 5,
    mikro_orm_migrations_id_seq: 15,
    product_id_seq: 13,
    reservation_backorder_seq: 3,
    stock_movement_id_seq: 62,
    webhook_attempt_id_seq: 47,
    webhook_delivery_id_seq: 95,
  },
} as const;
/** The deleted sampler's opening movement: its product and level went, its ledger stays. */
const ORPHAN = { productId: 13, locationId: 1, onHand: 4, reserved: 0 };

type Dialect = 'sqlite' | 'postgresql';

/** The fixture loaded into an empty database of the dialect, as 2026-11-25's schema and rows. */
async function loadFixture(
  dialect: Dialect,
  context: Mocha.Context,
): Promise<{ url: string; cleanUp: () => Promise<void> }> {
  const scratch = await scratchUrl(dialect, context, 'stock-forward');
  const dump = readFileSync(join(import.meta.dirname, 'fixtures', `stock-at-20261125.${dialect}.sql`), 'utf8');
  try {
    // The PostgreSQL dump sets search_path to '' for its session: it gets a connection of its own.
    if (dialect === 'postgresql') await adminQuery(dump, scratch.url);
    else {
      const file = new BetterSqlite3(parseDatabaseUrl(scratch.url).target);
      try {
        file.exec(dump);
      } finally {
        file.close();
      }
    }
  } catch (error) {
    await scratch.cleanUp();
    throw error;
  }
  return scratch;
}

/** A row as text whatever its driver answered: keys sorted, bytes as hex. */
function canonical(row: Record<string, unknown>): string {
  const sorted = Object.fromEntries(Object.entries(row).sort(([a], [b]) => (a < b ? -1 : 1)));
  return JSON.stringify(sorted, (_, value: unknown) =>
    value instanceof Uint8Array ? `x'${Buffer.from(value).toString('hex')}'` : value,
  );
}

/** Every plain table's rows (SQLite's search index is checked apart: its shadow tables are its own business). */
async function snapshot(session: SqlSession): Promise<Map<string, string[]>> {
  const tables =
    session.dialect === 'postgresql'
      ? await session.all<{ name: string }>(
          `select "tablename" as "name" from "pg_tables" where "schemaname" = 'public' order by 1`,
        )
      : await session.all<{ name: string }>(
          `select "name" from "sqlite_master" where "type" = 'table' and "name" not like 'sqlite\\_%' escape '\\' and "name" not like 'product\\_search%' escape '\\' order by 1`,
        );
  const rows = new Map<string, string[]>();
  for (const { name } of tables) {
    const read =
      session.dialect === 'postgresql'
        ? (await session.all<{ row: Record<string, unknown> }>(`select to_jsonb(t) as "row" from "${name}" t`)).map(
            ({ row }) => row,
          )
        : await session.all(`select * from "${name}"`);
    rows.set(name, read.map(canonical).sort());
  }
  return rows;
}

/** Each table's rows without a column. */
function without(rows: readonly string[], column: string): string[] {
  return rows.map((text) => {
    const { [column]: _, ...rest } = JSON.parse(text) as Record<string, unknown>;
    return canonical(rest);
  });
}

/** The migrations a snapshot records, in id order, less the time each ran. */
function migrationsIn(rows: Map<string, string[]>): { id: number; name: string }[] {
  return without(rows.get('mikro_orm_migrations')!, 'executed_at')
    .map((text) => JSON.parse(text) as { id: number; name: string })
    .sort((a, b) => a.id - b.id);
}

async function sequences(session: SqlSession): Promise<Record<string, number>> {
  const rows =
    session.dialect === 'postgresql'
      ? await session.all<{ name: string; value: unknown }>(
          `select "sequencename" as "name", "last_value" as "value" from "pg_sequences" where "schemaname" = 'public'`,
        )
      : await session.all<{ name: string; value: unknown }>('select "name", "seq" as "value" from "sqlite_sequence"');
  return Object.fromEntries(rows.map(({ name, value }) => [name, Number(value)]));
}

interface Ledger {
  readonly products: { id: number; onHand: number; reserved: number; sequence: number }[];
  readonly levels: { productId: number; locationId: number; onHand: number; reserved: number }[];
  readonly movements: {
    id: number;
    productId: number;
    locationId: number;
    kind: string;
    onHandDelta: number;
    reservedDelta: number;
    sequence: number;
  }[];
}

async function ledgerOf(session: SqlSession): Promise<Ledger> {
  const products = await session.all(
    'select "id", "quantity_in_stock", "reserved_quantity", "movement_sequence" from "product" order by "id"',
  );
  const levels = await session.all(
    'select "product_id", "location_id", "on_hand", "reserved" from "stock_level" order by "product_id", "location_id"',
  );
  const movements = await session.all(
    'select "id", "product_id", "location_id", "kind", "quantity_delta", "reserved_delta", "sequence" from "stock_movement" order by "id"',
  );
  return {
    products: products.map((row) => ({
      id: Number(row.id),
      onHand: Number(row.quantity_in_stock),
      reserved: Number(row.reserved_quantity),
      sequence: Number(row.movement_sequence),
    })),
    levels: levels.map((row) => ({
      productId: Number(row.product_id),
      locationId: Number(row.location_id),
      onHand: Number(row.on_hand),
      reserved: Number(row.reserved),
    })),
    movements: movements.map((row) => ({
      id: Number(row.id),
      productId: Number(row.product_id),
      locationId: Number(row.location_id),
      kind: String(row.kind),
      onHandDelta: Number(row.quantity_delta),
      reservedDelta: Number(row.reserved_delta),
      sequence: Number(row.sequence),
    })),
  };
}

/**
 * The ledger's invariants: each level is the sum of its movements (on hand and reserved; `incoming` is not in the
 * ledger), a product's totals the sum of its levels, and its movements numbered 1 to its movement_sequence without a
 * gap. Movements without a level are the deleted sampler's alone.
 */
function expectLedgerToHold({ products, levels, movements }: Ledger): void {
  const sums = new Map<string, { productId: number; locationId: number; onHand: number; reserved: number }>();
  for (const { productId, locationId, onHandDelta, reservedDelta } of movements) {
    const key = `${productId}/${locationId}`;
    const sum = sums.get(key) ?? { productId, locationId, onHand: 0, reserved: 0 };
    sums.set(key, { ...sum, onHand: sum.onHand + onHandDelta, reserved: sum.reserved + reservedDelta });
  }
  const unbalanced = levels.filter((level) => {
    const sum = sums.get(`${level.productId}/${level.locationId}`);
    return sum?.onHand !== level.onHand || sum.reserved !== level.reserved;
  });
  expect(unbalanced, 'levels whose movements do not sum to them').to.deep.equal([]);
  const levelKeys = new Set(levels.map(({ productId, locationId }) => `${productId}/${locationId}`));
  expect(
    [...sums.entries()].filter(([key]) => !levelKeys.has(key)).map(([, sum]) => sum),
    'movements without a level',
  ).to.deep.equal([ORPHAN]);
  expect(products.map(({ id }) => id)).not.to.include(ORPHAN.productId);
  const totals = products.map(({ id }) => {
    const own = levels.filter(({ productId }) => productId === id);
    return {
      id,
      onHand: own.reduce((sum, level) => sum + level.onHand, 0),
      reserved: own.reduce((sum, level) => sum + level.reserved, 0),
    };
  });
  expect(
    products.map(({ id, onHand, reserved }) => ({ id, onHand, reserved })),
    'each product’s totals, the sums of its levels',
  ).to.deep.equal(totals);
  expect(
    products.map(({ id, sequence }) => ({ id, sequences: Array.from({ length: sequence }, (_, i) => i + 1) })),
    'each product’s movements, numbered 1 to its movement_sequence',
  ).to.deep.equal(
    products.map(({ id }) => ({
      id,
      sequences: movements
        .filter(({ productId }) => productId === id)
        .map(({ sequence }) => sequence)
        .sort((a, b) => a - b),
    })),
  );
}

async function triggersOf(session: SqlSession): Promise<string[]> {
  const rows =
    session.dialect === 'postgresql'
      ? await session.all<{ name: string }>(
          `select "tgrelid"::regclass::text || '.' || "tgname" as "name" from "pg_trigger" where not "tgisinternal" order by 1`,
        )
      : await session.all<{ name: string }>(
          `select "tbl_name" || '.' || "name" as "name" from "sqlite_master" where "type" = 'trigger' order by 1`,
        );
  return rows.map(({ name }) => name);
}

async function productColumns(session: SqlSession): Promise<string[]> {
  const rows =
    session.dialect === 'postgresql'
      ? await session.all<{ name: string }>(
          `select "column_name" as "name" from "information_schema"."columns" where "table_schema" = 'public' and "table_name" = 'product'`,
        )
      : await session.all<{ name: string }>(`select "name" from pragma_table_info('product')`);
  return rows.map(({ name }) => name);
}

/** The ids of a reservation the fixture holds, by its owner's reference. */
async function reservationId(session: SqlSession, owner: string, reference: string): Promise<string> {
  const [row] = await session.all<{ id: string }>(
    'select "id" from "reservation" where "owner" = ? and "reference" = ?',
    [owner, reference],
  );
  if (!row) throw new Error(`The fixture has no reservation ${reference} of ${owner}.`);
  return row.id;
}

describe('a stock database of 2026-11-25, migrated forward', () => {
  for (const dialect of ['sqlite', 'postgresql'] as const) {
    describe(`on ${dialect}`, () => {
      let cleanUp: (() => Promise<void>) | undefined;
      let database: Database;
      let rowsBefore: Map<string, string[]>;
      let sequencesBefore: Record<string, number>;
      let triggersBefore: string[];
      let applied: string[];

      before(async function () {
        const loaded = await loadFixture(dialect, this);
        cleanUp = loaded.cleanUp;
        database = await openStockDatabase(loaded.url);
        rowsBefore = await snapshot(database.session);
        sequencesBefore = await sequences(database.session);
        triggersBefore = await triggersOf(database.session);
        applied = await database.migrate();
      });

      after(async () => {
        await database?.close();
        await cleanUp?.();
      });

      it('is the fixture as made: 2026-11-25’s schema, its rows, its sequences, its write_context and triggers', () => {
        expect(Object.fromEntries([...rowsBefore].map(([table, rows]) => [table, rows.length]))).to.deep.equal(
          FIXTURE_ROWS,
        );
        expect(sequencesBefore).to.deep.equal(FIXTURE_SEQUENCES[dialect]);
        expect(migrationsIn(rowsBefore).map(({ name }) => name)).to.deep.equal(
          STOCK_MIGRATIONS[dialect].map(({ name }) => name).slice(0, -forwardOf(dialect).length),
        );
        expect(migrationsIn(rowsBefore).at(-1)).to.deep.equal({ id: 15, name: LAST_OF_HISTORY });
        const products = rowsBefore.get('product')!.map((text) => JSON.parse(text) as { write_context: unknown });
        expect(products.filter(({ write_context }) => write_context == null)).to.deep.equal([]);
        expect(triggersBefore).to.deep.equal(
          dialect === 'postgresql'
            ? ['product.product_number_stock_movement', 'product.product_stock_movement']
            : [
                'product.product_search_delete',
                'product.product_search_insert',
                'product.product_search_update',
                'product.product_stock_movement_on_insert',
                'product.product_stock_movement_on_update',
              ],
        );
      });

      it('applies exactly the migrations after the history', () => {
        expect(applied).to.deep.equal(forwardOf(dialect));
        expect(applied.slice(0, 2)).to.deep.equal([
          '20261129-ledger-triggers-dropped',
          '20261129-ledger-without-write-context',
        ]);
      });

      it('keeps every row of every table as it was, less product.write_context, backorders at any location, in no named state yet, and each movement saying why and who', async () => {
        const rowsAfter = await snapshot(database.session);
        // The tables of what came after the fixture (shipments and returns) start empty.
        const added = [...rowsAfter.keys()].filter((table) => !rowsBefore.has(table));
        expect(added.sort()).to.deep.equal(['shipment', 'shipment_line', 'stock_return', 'stock_return_line']);
        for (const table of added) expect(rowsAfter.get(table), table).to.deep.equal([]);
        const orderHolds = new Set(
          rowsBefore
            .get('reservation')!
            .map((text) => JSON.parse(text) as { id: string; origin: string })
            .filter(({ origin }) => origin === 'order')
            .map(({ id }) => id),
        );
        const withColumns = (rows: readonly string[], columns: (row: Record<string, unknown>) => object) =>
          rows
            .map((text) => {
              const row = JSON.parse(text) as Record<string, unknown>;
              return canonical({ ...row, ...columns(row) });
            })
            .sort();
        const NO_STATES = { committed_quantity: 0, quality_control_quantity: 0, damaged_quantity: 0 };
        const kept: Record<string, (rows: readonly string[]) => string[]> = {
          product: (rows) => withColumns(without(rows, 'write_context'), () => NO_STATES),
          // A backorder made before recorded no location its line named: it waits for stock at any, as it did.
          reservation_backorder: (rows) => withColumns(rows, () => ({ location_id: null })),
          stock_level: (rows) => withColumns(rows, () => ({ committed: 0, quality_control: 0, damaged: 0 })),
          // A movement's code is its kind's (an adjustment's, `correction`); one that named nobody was the order
          // flow's when its hold is an order's, else the anonymous caller's.
          stock_movement: (rows) =>
            withColumns(rows, ({ kind, actor, reservation_id }) => ({
              committed_delta: 0,
              quality_control_delta: 0,
              damaged_delta: 0,
              reason_code: kind === 'adjusted' ? 'correction' : kind,
              actor: actor ?? (orderHolds.has(String(reservation_id)) ? 'sales' : 'anonymous'),
            })),
        };
        for (const [table, rows] of rowsBefore) {
          if (table === 'mikro_orm_migrations') continue;
          expect(rowsAfter.get(table), table).to.deep.equal(kept[table]?.(rows) ?? rows);
        }
        const actors = rowsAfter.get('stock_movement')!.map((text) => (JSON.parse(text) as { actor: unknown }).actor);
        expect(actors, 'the order flow’s movements now say whose they are').to.include('sales');
        expect(actors, 'every movement says whom it was made for').not.to.include(null);
        expect(migrationsIn(rowsAfter)).to.deep.equal([
          ...migrationsIn(rowsBefore),
          ...forwardOf(dialect).map((name, index) => ({ id: 16 + index, name })),
        ]);
      });

      it('keeps every id sequence where it stood', async () => {
        const migrations = dialect === 'postgresql' ? 'mikro_orm_migrations_id_seq' : 'mikro_orm_migrations';
        expect(await sequences(database.session)).to.deep.equal({
          ...sequencesBefore,
          [migrations]: sequencesBefore[migrations]! + forwardOf(dialect).length,
        });
      });

      it('keeps the ledger summing to every level, and every product’s movement_sequence at its last movement', async () => {
        expectLedgerToHold(await ledgerOf(database.session));
      });

      it('drops write_context and every trigger that wrote the ledger, and their functions', async () => {
        expect(await productColumns(database.session)).not.to.include('write_context');
        expect(await triggersOf(database.session)).to.deep.equal(
          dialect === 'postgresql'
            ? []
            : ['product.product_search_delete', 'product.product_search_insert', 'product.product_search_update'],
        );
        if (dialect === 'postgresql')
          expect(
            await database.session.all(
              `select "proname" from "pg_proc" where "proname" in ('append_stock_movement', 'number_stock_movement')`,
            ),
          ).to.deep.equal([]);
      });

      it('keeps the search index whole', async () => {
        if (dialect === 'sqlite')
          // rank 1: the index is also compared with the product rows it indexes.
          await database.session.run(
            `insert into "product_search" ("product_search", "rank") values ('integrity-check', 1)`,
          );
        const found = await new SqlProductRepository(database.session).search({ q: 'strainer', sort: 'id', limit: 5 });
        expect(found.map(({ id, name }) => [id, name])).to.deep.equal([[6, 'Tea strainer']]);
      });

      it('works with today’s code, which appends each movement after the product’s last, at the next id', async () => {
        const session = database.session;
        const start = Date.parse('2026-11-29T09:00:00Z');
        let minutes = 0;
        const clock = () => new Date(start + ++minutes * 60_000);
        const unitOfWork = new SqlUnitOfWork(database, {
          idempotencyTtlMs: 24 * 3_600_000,
          now: () => clock().getTime(),
        });
        const { movements: old } = await ledgerOf(session);

        // A hold the fixture left held, committed by its owner: Green tea, 3 at the default location.
        const cart1001 = await reservationId(session, 'client-a', 'cart-1001');
        expect(
          await new CommitReservation(unitOfWork, clock).execute(cart1001, 'client-a', { requestId: 'r-1' }),
        ).to.include({ status: 'committed' });
        // An adjustment at a named location (on PostgreSQL, in one statement: adjustAtOnce).
        await new AdjustStock(unitOfWork, clock).execute(
          1,
          StockAdjustment.create({ delta: 5, reason: 'recount', locationId: 2 }),
        );
        // With webhook events on, in a transaction that fills cart-1008's waiting backorder of 4 mugs.
        await new AdjustStock(unitOfWork, clock, { lowStockHysteresis: 1, webhookEvents: true }).execute(
          4,
          StockAdjustment.create({ delta: 4, locationId: 1 }),
        );
        // A new hold, then its commit: 2 teapots at the south warehouse.
        const reserve = new ReserveStock(unitOfWork, {
          clock,
          newId: () => 'c0000000-0000-4000-8000-000000000001',
          defaultTtlSeconds: 3600,
        });
        const { value: held } = await reserve.execute(
          'client-c',
          ReservationRequest.create({ reference: 'cart-2001', lines: [{ productId: 3, quantity: 2, locationId: 3 }] }),
        );
        expect(held).to.deep.include({ created: true });
        expect(held.reservation.lines).to.deep.equal([
          {
            productId: 3,
            quantity: 2,
            locationId: 3,
            allocations: [{ locationId: 3, quantity: 2 }],
            backorderedQuantity: 0,
          },
        ]);
        await new CommitReservation(unitOfWork, clock).execute(held.reservation.id, 'client-c');
        // A new product and a new location: the next ids after the deleted sampler (13) and the removed pop-up (5).
        const { value: product } = await new CreateProduct(unitOfWork, clock).execute(
          ProductDetails.create({
            name: 'Matcha whisk',
            description: 'Bamboo',
            price: Money.fromCents(1250),
            quantityInStock: 6,
          }),
        );
        expect(product.id).to.equal(14);
        const location = await new Locations(unitOfWork).create(LocationDraft.create({ code: 'annex', name: 'Annex' }));
        expect(location.id).to.equal(6);

        const ledger = await ledgerOf(session);
        expect(ledger.movements.slice(0, old.length), 'the movements before').to.deep.equal(old);
        const lastBefore = (productId: number) =>
          Math.max(...old.filter((movement) => movement.productId === productId).map(({ sequence }) => sequence));
        expect(
          ledger.movements
            .slice(old.length)
            .map((m) => [m.id, m.productId, m.kind, m.locationId, m.onHandDelta, m.reservedDelta, m.sequence]),
        ).to.deep.equal([
          [63, 1, 'committed', 1, -3, -3, lastBefore(1) + 1],
          [64, 1, 'adjusted', 2, 5, 0, lastBefore(1) + 2],
          [65, 4, 'adjusted', 1, 4, 0, lastBefore(4) + 1],
          [66, 4, 'backorder-filled', 1, 0, 4, lastBefore(4) + 2],
          [67, 3, 'reserved', 3, 0, 2, lastBefore(3) + 1],
          [68, 3, 'committed', 3, -2, -2, lastBefore(3) + 2],
          [69, 14, 'created', 1, 6, 0, 1],
        ]);
        expectLedgerToHold(ledger);

        const cart1008 = await new SqlReservationRepository(session).findById(
          await reservationId(session, 'client-a', 'cart-1008'),
        );
        expect(cart1008!.lines).to.deep.equal([
          { productId: 4, quantity: 7, allocations: [{ locationId: 1, quantity: 7 }], backorderedQuantity: 0 },
        ]);
        expect(await new SqlProductRepository(session).findById(4)).to.include({
          quantityInStock: 7,
          reservedQuantity: 7,
          backorderedQuantity: 0,
        });
        const found = await new SqlProductRepository(session).search({ q: 'whisk', sort: 'id', limit: 5 });
        expect(found.map(({ id }) => id)).to.deep.equal([14]);
      });
    });
  }
});
