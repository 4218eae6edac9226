import {
  adminQuery,
  createScratchDatabase,
  type FreezableProxy,
  freezableProxy,
  type ScratchDatabase,
} from '@platform/test-kit';
import { aProductBody } from '@stock/domain/testing';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG, type RunningStockService, startStockService, Tokens } from '../src';
import { capturingLogger, json } from './support';
import { checkedFetch } from './checked-fetch';

/** The scratch database's URL, with the connection going through the proxy. */
function throughProxy(database: ScratchDatabase, proxy: FreezableProxy): string {
  const url = new URL(database.url);
  url.port = String(proxy.port);
  return url.toString();
}

const FAST = { dbQueryTimeoutMs: 500, dbAcquireTimeoutMs: 500, shutdownGraceMs: 1000 };
/** How long a freeze lasts unless the test thaws it first. */
const FREEZE_MS = 20_000;

describe('a stalled or failing PostgreSQL', function () {
  this.timeout(60_000);
  let database: ScratchDatabase;
  let proxy: FreezableProxy;
  let service: RunningStockService;
  let logs: Record<string, unknown>[];

  beforeEach(async function () {
    database = await createScratchDatabase(this);
    proxy = await freezableProxy(Number(new URL(database.url).port || 5432));
    logs = [];
    service = await startStockService(
      { ...DEFAULT_CONFIG, ...FAST, port: 0, databaseUrl: throughProxy(database, proxy) },
      { logger: capturingLogger(logs) },
    );
  });
  afterEach(async () => {
    proxy?.thaw();
    await service?.close({ immediate: true });
    await proxy?.close();
    await database?.drop();
  });

  const request = (path: string, init?: RequestInit) => checkedFetch(`${service.url}${path}`, init);
  const stateLines = () =>
    logs.filter((l) => /^database (unavailable|reachable again)/.test(String(l.message))).map((l) => l.message);

  it('answers 503 DATABASE_UNAVAILABLE with Retry-After while the database is frozen, and recovers when it thaws', async () => {
    const created = (await (await request('/api/products', json(aProductBody()))).json()) as { id: number };
    // The freeze ends by itself after FREEZE_MS: an answer that waited for the database would come after it.
    proxy.freeze();
    let frozen = true;
    const freezeEnds = setTimeout(() => {
      frozen = false;
      proxy.thaw();
    }, FREEZE_MS);
    const during = (response: Promise<Response>) => response.then((answer) => ({ answer, frozen }));
    const answers = await Promise.all([
      during(request(`/api/products/${created.id}`)),
      during(request('/api/products', json(aProductBody()))),
      during(request('/api/products?limit=5')),
    ]);
    clearTimeout(freezeEnds);
    expect(
      answers.map((a) => a.frozen),
      'answered while the database was still frozen',
    ).to.deep.equal([true, true, true]);
    for (const { answer: response } of answers) {
      expect(response.status, await response.clone().text()).to.equal(503);
      expect(response.headers.get('content-type')).to.equal('application/problem+json');
      expect(response.headers.get('retry-after')).to.match(/^\d+$/);
      expect(await response.json()).to.include({ code: 'DATABASE_UNAVAILABLE', status: 503 });
    }
    expect((await request('/health/ready')).status).to.equal(503);
    proxy.thaw();
    let status = 0;
    for (let i = 0; i < 50 && status !== 201; i++) {
      status = (await request('/api/products', json(aProductBody()))).status;
      if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).to.equal(201);
    expect((await request('/health/ready')).status).to.equal(200);
    expect(
      logs.filter((l) => l.level === 'error'),
      'no error (stack trace) lines',
    ).to.deep.equal([]);
  });

  it('answers 503 while the database is down, logging the outage once and the recovery once, not per request', async () => {
    await proxy.down();
    const statuses = await Promise.all(
      Array.from({ length: 30 }, () => request('/api/products/1').then((r) => r.status)),
    );
    expect(statuses).to.deep.equal(Array(30).fill(503));
    await proxy.up();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await request('/api/products?limit=1')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).to.equal(200);
    expect(stateLines()).to.deep.equal([
      'database unavailable: requests answer 503 until it is back',
      'database reachable again',
    ]);
    expect(logs.filter((l) => l.level === 'error')).to.deep.equal([]);
  });

  it('stops within its grace period when told to while the database is frozen, and says it had to cut work', async () => {
    // Statements that could outlast the freeze: only the shutdown can end the request, and the freeze (until afterEach)
    // outlasts the test.
    await service.close({ immediate: true });
    service = await startStockService(
      {
        ...DEFAULT_CONFIG,
        port: 0,
        databaseUrl: throughProxy(database, proxy),
        dbQueryTimeoutMs: 60_000,
        dbAcquireTimeoutMs: 60_000,
        shutdownGraceMs: 500,
      },
      { logger: capturingLogger(logs) },
    );
    proxy.freeze();
    const stuck = request('/api/products', json(aProductBody())).then(
      (r) => r.status,
      () => 'cut',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    const clean = await service.close({ immediate: true });
    // A correctness bound: far inside the statement timeout, which the frozen database would otherwise run into.
    expect(Date.now() - started).to.be.below(15_000);
    expect(await stuck).to.equal('cut');
    expect(clean).to.equal(false);
    expect(logs.map((l) => l.message)).to.include('shutdown grace period over: closing the remaining connections');
  });
});

describe('starting on a database that is not there', function () {
  this.timeout(30_000);

  it('refuses a PostgreSQL database that does not exist, naming it, and creates nothing', async function () {
    const name = `missing_${process.pid}_${Date.now()}`;
    const scratch = await createScratchDatabase(this);
    const url = new URL(scratch.url);
    url.pathname = `/${name}`;
    try {
      await startStockService(
        { ...DEFAULT_CONFIG, port: 0, databaseUrl: url.toString() },
        { logger: capturingLogger([]) },
      ).then(
        () => expect.fail('started'),
        (error: Error) =>
          expect(error.message).to.match(new RegExp(`database "${name}" does not exist.*DB_CREATE_DATABASE=true`)),
      );
      const exists = await adminQuery(`select 1 from pg_database where datname = '${name}'`).then(
        (rows) => rows.length,
      );
      expect(exists).to.equal(0);
      const created = await startStockService(
        { ...DEFAULT_CONFIG, port: 0, databaseUrl: url.toString(), dbCreateDatabase: 'true' },
        { logger: capturingLogger([]) },
      );
      await created.close({ immediate: true });
    } finally {
      await adminQuery(`drop database if exists "${name}" with (force)`);
      await scratch.drop();
    }
  });

  it('refuses a SQLite file that does not exist unless creation is asked for, and a folder it cannot create', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'stock-missing-'));
    try {
      const databaseUrl = `sqlite:${join(directory, 'nested', 'stock.db')}`;
      await expect(
        startStockService({ ...DEFAULT_CONFIG, port: 0, databaseUrl }, { logger: capturingLogger([]) }),
      ).to.be.rejectedWith(/does not exist.*DB_CREATE_DATABASE=true/);
      await expect(
        startStockService(
          { ...DEFAULT_CONFIG, port: 0, databaseUrl: 'sqlite:/proc/x/stock.db', dbCreateDatabase: 'true' },
          { logger: capturingLogger([]) },
        ),
      ).to.be.rejectedWith(/Cannot create the folder \/proc\/x/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('a SQLite database that stops taking writes', function () {
  this.timeout(30_000);
  let directory: string;
  let service: RunningStockService;
  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'stock-readonly-'));
    service = await startStockService(
      { ...DEFAULT_CONFIG, port: 0, databaseUrl: `sqlite:${join(directory, 'stock.db')}`, dbCreateDatabase: 'true' },
      { logger: capturingLogger([]) },
    );
  });
  afterEach(async () => {
    await service?.close({ immediate: true });
    rmSync(directory, { recursive: true, force: true });
  });
  const session = () => service.container.resolve(Tokens.Database).session;
  const post = () => checkedFetch(`${service.url}/api/products`, json(aProductBody()));

  // SQLite's own switches stand in for a file made read-only and a disk that filled up: the errors are the real
  // SQLITE_READONLY and SQLITE_FULL.
  for (const [what, refuse, allow] of [
    ['read-only', 'pragma query_only = 1', 'pragma query_only = 0'],
    ['full', '', 'pragma max_page_count = 1073741823'],
  ] as const) {
    it(`answers writes 503 while the file is ${what}, reports it in readiness, and recovers`, async () => {
      expect((await post()).status).to.equal(201);
      let refused: Response;
      if (what === 'full') {
        const [{ page_count }] = (await session().all('pragma page_count')) as [{ page_count: number }];
        await session().run(`pragma max_page_count = ${page_count}`);
        // Writes go on while the pages have room; the first that needs a new page finds the "disk" full.
        let attempts = 0;
        do refused = await post();
        while (refused.status === 201 && ++attempts < 5000);
      } else {
        await session().run(refuse);
        refused = await post();
      }
      expect(refused.status).to.equal(503);
      expect(await refused.json()).to.include({ code: 'DATABASE_UNAVAILABLE' });
      expect((await checkedFetch(`${service.url}/health/ready`)).status).to.equal(503);
      await session().run(allow);
      expect((await checkedFetch(`${service.url}/health/ready`)).status).to.equal(200);
      expect((await post()).status).to.equal(201);
    });
  }
});
