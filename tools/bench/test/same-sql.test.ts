import type autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createScratchDatabase, type ScratchDatabase } from '@platform/test-kit';
import { loadConfig, startStockService } from '@stock/service';
import { seedProducts } from '@tools/seed';
import { koaApp } from '../src/targets/koa-server';
import { pgQueries } from '../src/targets/pg-queries';
import { type Handlers, rawServer } from '../src/targets/raw-http';
import { openSqlite, sqliteQueries } from '../src/targets/sqlite-queries';
import { HOT_PRODUCT_STOCK, WORKLOADS } from '../src/workloads';

/** A statement as it left for the database: its text, whether it went named (prepared), and its values. */
interface Sent {
  readonly text: string;
  readonly named?: boolean;
  readonly values: unknown[];
}

/** What one server did for one request: the statements it sent, and its answer. */
interface Exchange {
  readonly statements: Sent[];
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string | null>;
}

interface Endpoint {
  readonly base: string;
  close(): Promise<void>;
}

const PRODUCTS = 60;
const sent: Sent[] = [];
let recording = false;
const record = (statement: Sent) => recording && sent.push(statement);

/** Records what any pg client sends; the baselines and the service load the same pg. */
function recordPostgres(): () => void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be put back, and called with its this
  const query = pg.Client.prototype.query;
  (pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const { text, name, values } = (typeof config === 'string' ? { text: config, values: rest[0] } : config) as {
      text: string;
      name?: string;
      values?: unknown[];
    };
    record({ text, named: name !== undefined, values: values ?? [] });
    return (query as (...args: unknown[]) => unknown).call(this, config, ...rest);
  };
  return () => void (pg.Client.prototype.query = query);
}

/** Records what any better-sqlite3 statement runs, the service's and the baseline's: they load the same driver. */
function recordSqlite(): () => void {
  const probe = new Database(':memory:');
  const prototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  const originals = Object.fromEntries(['all', 'get', 'run', 'iterate'].map((method) => [method, prototype[method]!]));
  for (const [method, original] of Object.entries(originals)) {
    prototype[method] = function (this: { source: string }, ...values: unknown[]) {
      record({ text: `${method}: ${this.source}`, values });
      return original.apply(this, values);
    };
  }
  return () => Object.assign(prototype, originals);
}

/**
 * The request id and the time of a movement's context differ between any two requests; everything else must not.
 * PostgreSQL's batch statements take them in arrays.
 */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value instanceof Date) return '<time>';
  if (typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value))
    return '<uuid>';
  // SQLite's connection binds a time as epoch milliseconds: any within a day of now is the request's.
  if (typeof value === 'number' && Math.abs(value - Date.now()) < 86_400_000) return '<time>';
  return value;
}

/** One request of each workload, fixed once, so that every server gets the very same requests. */
function requests(): { workload: string; method: string; path: string; body?: string }[] {
  return WORKLOADS.filter((workload) => !workload.serviceOnly).map((workload) => {
    const template = workload.requests({ products: PRODUCTS })[0]!;
    const setup = template.setupRequest as
      ((request: autocannon.Request, context: object) => autocannon.Request) | undefined;
    const request = setup ? setup({ ...template }, {}) : template;
    return {
      workload: workload.name,
      method: request.method ?? 'GET',
      path: request.path!,
      ...(request.body !== undefined && { body: String(request.body) }),
    };
  });
}

async function exchange(base: string, request: ReturnType<typeof requests>[number]): Promise<Exchange> {
  sent.length = 0;
  recording = true;
  try {
    const headers = request.body === undefined ? undefined : { 'content-type': 'application/json' };
    const response = await fetch(`${base}${request.path}`, {
      method: request.method,
      ...(headers && { headers }),
      ...(request.body !== undefined && { body: request.body }),
    });
    const body = await response.json();
    const named = ['etag', 'link', 'location'].map((name): [string, string | null] => [
      name,
      response.headers.get(name),
    ]);
    return {
      statements: sent.map((s) => ({ ...s, values: s.values.map(comparable) })),
      status: response.status,
      body,
      headers: Object.fromEntries(named),
    };
  } finally {
    recording = false;
  }
}

async function serve(server: Server): Promise<Endpoint> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function service(databaseUrl: string, cwd: string): Promise<Endpoint> {
  const quiet = {
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    RESERVATION_SWEEP_MS: '3600000',
    RETENTION_SWEEP_MS: '3600000',
  };
  const running = await startStockService(loadConfig(quiet, cwd));
  return { base: running.url, close: async () => void (await running.close({ immediate: true })) };
}

/** Every workload sent to the service and to each baseline, each on a database seeded the same. */
async function compare(servers: Record<string, Endpoint>): Promise<void> {
  const [reference, ...baselines] = Object.entries(servers);
  for (const request of requests()) {
    const expected = await exchange(reference![1].base, request);
    expect(expected.statements, `${request.workload}: the service sent nothing the recorder saw`).to.not.be.empty;
    for (const [name, baseline] of baselines) {
      const actual = await exchange(baseline.base, request);
      expect(actual.statements, `${request.workload}: the statements of ${name}`).to.deep.equal(expected.statements);
      expect(
        { status: actual.status, body: actual.body, headers: actual.headers },
        `${request.workload}: the answer of ${name}`,
      ).to.deep.equal({
        status: expected.status,
        body: expected.body,
        headers: expected.headers,
      });
    }
  }
}

describe("the SQL baselines send the service's statements", function () {
  this.timeout(120_000);
  const folder = mkdtempSync(join(tmpdir(), 'bench-same-sql-'));
  const seeded = async (url: string) =>
    void (await seedProducts(url, { count: PRODUCTS, firstStock: HOT_PRODUCT_STOCK }));
  after(() => rmSync(folder, { recursive: true, force: true }));

  describe('on PostgreSQL', () => {
    const databases: ScratchDatabase[] = [];
    const pools: pg.Pool[] = [];
    let restore: () => void = () => undefined;
    after(async () => {
      restore();
      await Promise.all(pools.map((pool) => pool.end()));
      await Promise.all(databases.map((database) => database.drop()));
    });

    it('node:http + pg and Koa + pg: the same texts, prepared, values, no transaction and answers', async function () {
      for (let i = 0; i < 3; i++) databases.push(await createScratchDatabase(this));
      await Promise.all(databases.map((database) => seeded(database.url)));
      const running = await service(databases[0]!.url, folder);
      const handlers = (url: string): Handlers =>
        pgQueries(pools[pools.push(new pg.Pool({ connectionString: url, max: 2 })) - 1]!);
      const raw = await serve(rawServer(handlers(databases[1]!.url)));
      const koaCallback = koaApp(handlers(databases[2]!.url)).callback();
      const koa = await serve(createServer((req, res) => void koaCallback(req, res)));
      restore = recordPostgres();
      try {
        await compare({ service: running, 'node:http + pg': raw, 'Koa + @koa/router + pg': koa });
      } finally {
        await Promise.all([running, raw, koa].map((endpoint) => endpoint.close()));
      }
    });
  });

  describe('on SQLite', () => {
    let restore: () => void = () => undefined;
    after(() => restore());

    it('node:http + better-sqlite3: the same texts, run alike, values, no transaction and answers', async () => {
      const [ofService, ofBaseline] = ['service', 'baseline'].map((name) => `sqlite:${join(folder, `${name}.db`)}`);
      await Promise.all([seeded(ofService!), seeded(ofBaseline!)]);
      const running = await service(ofService!, folder);
      const db = openSqlite(ofBaseline!);
      const raw = await serve(rawServer(sqliteQueries(db)));
      restore = recordSqlite();
      try {
        await compare({ service: running, 'node:http + better-sqlite3': raw });
      } finally {
        await Promise.all([running, raw].map((endpoint) => endpoint.close()));
        db.close();
      }
    });
  });
});
