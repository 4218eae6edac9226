import { createScratchDatabase } from '@platform/test-kit';
import { expect } from 'chai';
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStockDatabase } from '@stock/persistence-sql';
import { startProcess } from './process-support';

/**
 * Runs main with `env` and answers what a person would see: the exit code and stderr, and whether stdout stayed JSON.
 */
async function failedStart(env: Record<string, string>, options: Parameters<typeof startProcess>[1] = {}) {
  const service = startProcess(env, options);
  const code = await service.exited;
  await new Promise((resolve) => setImmediate(resolve));
  return {
    code,
    stderr: service.stderr.filter(Boolean),
    stdoutIsJson: service.stdout.filter(Boolean).every((line) => /^\{.*\}$/.test(line)),
  };
}

describe('a start that fails', function () {
  this.timeout(60_000);
  let directory = '';
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'stock-start-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  /**
   * A case: what it is, the environment it starts with, the line it must print, and what else must hold after (nothing
   * was touched).
   */
  const cases: [string, () => Promise<Record<string, string>>, RegExp, (() => void)?][] = [
    [
      'a port already in use, before the database is opened',
      async () => {
        const taken = net.createServer().listen(0, '127.0.0.1');
        await new Promise((resolve) => taken.once('listening', resolve));
        after(() => taken.close());
        return {
          PORT: String((taken.address() as net.AddressInfo).port),
          HOST: '127.0.0.1',
          DATABASE_URL: `sqlite:${join(directory, 'never-opened.db')}`,
          DB_CREATE_DATABASE: 'true',
        };
      },
      /already in use/,
      // The port is bound first: a SQLite file that creation was allowed for is never made.
      () => expect(readdirSync(directory)).to.deep.equal([]),
    ],
    [
      'a malformed DATABASE_URL',
      async () => ({ DATABASE_URL: 'postgres://user@:bad:port/x' }),
      /DATABASE_URL is not a valid URL/,
    ],
    [
      'an unsupported DATABASE_URL',
      async () => ({ DATABASE_URL: 'mysql://localhost/stock' }),
      /Unsupported DATABASE_URL/,
    ],
    [
      'a PostgreSQL that refuses connections',
      async () => ({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test' }),
      /not reachable at 127\.0\.0\.1:1 \(connection refused\)/,
    ],
    [
      'an unknown PostgreSQL role',
      async () => ({ DATABASE_URL: 'postgres://nobody_at_all@127.0.0.1:5432/test' }),
      /refused the connection for user "nobody_at_all"/,
    ],
    [
      'a missing PostgreSQL database',
      async () => ({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/doesnotexist_db' }),
      /database "doesnotexist_db" does not exist/,
    ],
    [
      'a SQLite folder that cannot be created',
      async () => ({ DATABASE_URL: 'sqlite:/proc/x/stock.db', DB_CREATE_DATABASE: 'true' }),
      /Cannot create the folder \/proc\/x/,
    ],
    [
      'a SQLite path that is a folder',
      async () => ({ DATABASE_URL: `sqlite:${directory}`, DB_CREATE_DATABASE: 'true' }),
      /Cannot open SQLite database \/.*stock-start-/,
    ],
    [
      'an unknown key in the configuration file',
      async () => {
        writeFileSync(join(directory, 'config.json'), JSON.stringify({ prot: 1 }));
        return { STOCK_CONFIG: join(directory, 'config.json') };
      },
      /unknown setting "prot"; known: port, host/,
    ],
    [
      'a setting that is not valid',
      async () => ({ DB_QUERY_TIMEOUT_MS: 'soon' }),
      /DB_QUERY_TIMEOUT_MS must be an integer/,
    ],
  ];

  for (const [what, env, message, afterwards] of cases) {
    it(`says so in one line and exits 1: ${what}`, async () => {
      const { code, stderr, stdoutIsJson } = await failedStart({ DATABASE_URL: 'memory:', ...(await env()) });
      expect(code).to.equal(1);
      expect(stderr, stderr.join('\n')).to.have.length(1);
      expect(stderr[0])
        .to.match(/^stock service failed to start: /)
        .and.match(message);
      expect(stdoutIsJson).to.equal(true);
      afterwards?.();
    });
  }

  it('refuses a SQLite file it may not write, before serving anything', async () => {
    const file = join(directory, 'stock.db');
    const database = await openStockDatabase(`sqlite:${file}`, { createDatabase: true });
    await database.migrate();
    await database.close();
    // A file SQLite itself holds read-only, whoever runs the service: file modes do not stop root, and another
    // user may not be able to read the checkout. A header's write version above 2 means read-only
    // (https://www.sqlite.org/fileformat2.html#file_format_version_numbers, offset 18).
    const handle = openSync(file, 'r+');
    writeSync(handle, Buffer.from([3]), 0, 1, 18);
    closeSync(handle);
    const { code, stderr } = await failedStart({ DATABASE_URL: `sqlite:${file}` }, { cwd: directory });
    expect(code).to.equal(1);
    expect(stderr, stderr.join('\n')).to.have.length(1);
    expect(stderr[0]).to.match(/^stock service failed to start: The database sqlite:.*stock\.db does not take writes/);
  });

  it('names the PostgreSQL database it could not find even when creating is off by default for it', async function () {
    const scratch = await createScratchDatabase(this);
    await scratch.drop();
    const { code, stderr } = await failedStart({ DATABASE_URL: scratch.url });
    expect(code).to.equal(1);
    expect(stderr[0]).to.contain(new URL(scratch.url).pathname.slice(1));
  });
});
