import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createScratchDatabase, type ScratchDatabase } from '@platform/test-kit';
import { openLedgerSqlite, pgLedger, sqliteLedger } from '../src/targets/ledger-queries';
import type { Handlers, StoredProduct } from '../src/targets/raw-http';
import { HOT_PRODUCT_STOCK } from '../src/workloads';

interface Movement {
  product_id: number;
  location_id: number;
  kind: string;
  quantity_delta: number;
  reserved_delta: number;
  quantity_after: number;
  reserved_after: number;
  sequence: number;
  actor: string;
}

/** What both stores' ledgered −1 must do, whatever SQL gets it done. */
function behavesAsALedgeredChange(store: () => { handlers: Handlers; movements: () => Promise<Movement[]> }) {
  it('takes one unit off the hot level and records each change as the next movement of its product', async () => {
    const { handlers, movements } = store();
    const first = (await handlers.adjust(1, -1)) as StoredProduct;
    const second = (await handlers.adjust(1, -1)) as StoredProduct;
    expect([first.quantityInStock, second.quantityInStock]).to.deep.equal([
      HOT_PRODUCT_STOCK - 1,
      HOT_PRODUCT_STOCK - 2,
    ]);
    expect((await handlers.getOne(1))!.quantityInStock).to.equal(HOT_PRODUCT_STOCK - 2);
    const recorded = (await movements()).map((m) => ({ ...m, sequence: Number(m.sequence) }));
    expect(recorded).to.deep.equal(
      [1, 2].map((sequence) => ({
        product_id: 1,
        location_id: 1,
        kind: 'adjusted',
        quantity_delta: -1,
        reserved_delta: 0,
        quantity_after: HOT_PRODUCT_STOCK - sequence,
        reserved_after: 0,
        sequence,
        actor: 'anonymous',
      })),
    );
  });

  it('refuses a change below what is held, writing nothing, and answers a missing product as missing', async () => {
    const { handlers, movements } = store();
    const before = (await movements()).length;
    expect(await handlers.adjust(1, -HOT_PRODUCT_STOCK - 1)).to.equal('refused');
    expect(await handlers.adjust(2, -1)).to.equal(undefined);
    expect(await handlers.getOne(2)).to.equal(undefined);
    expect((await movements()).length).to.equal(before);
  });
}

const MOVEMENTS = `select product_id, location_id, kind, quantity_delta::integer, reserved_delta::integer, quantity_after,
  reserved_after, sequence, actor from raw_ledger_movement order by product_id, sequence`;

describe("the bench's ledgered −1 on PostgreSQL", function () {
  let scratch: ScratchDatabase;
  let pool: pg.Pool;
  let handlers: Handlers;

  before(async function () {
    scratch = await createScratchDatabase(this);
    pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
    handlers = await pgLedger(pool);
  });

  after(async () => {
    await pool?.end();
    await scratch?.drop();
  });

  behavesAsALedgeredChange(() => ({
    handlers,
    movements: async () => (await pool.query<Movement>(MOVEMENTS)).rows,
  }));
});

describe("the bench's ledgered −1 on SQLite", () => {
  let folder: string;
  let db: ReturnType<typeof openLedgerSqlite>;
  let handlers: Handlers;

  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'ledger-baseline-'));
    db = openLedgerSqlite(`sqlite:${join(folder, 'bench.db')}`);
    handlers = sqliteLedger(db);
  });

  after(() => {
    db?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  behavesAsALedgeredChange(() => ({
    handlers,
    movements: async () => db.prepare<[], Movement>(MOVEMENTS.replaceAll('::integer', '')).all(),
  }));
});
