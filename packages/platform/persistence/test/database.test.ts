import { Migration } from '@mikro-orm/migrations';
import { createScratchDatabase } from '@platform/test-kit';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Database, type Dialect, idempotencyKeySchema, prepared, sweepExpiredIdempotencyKeys } from '../src';

chai.use(chaiAsPromised);
const { expect } = chai;

function createIdempotencyKeys(epochType: string) {
  return class extends Migration {
    override async up(): Promise<void> {
      this.addSql(
        `create table "idempotency_key" ("scope" varchar(255) not null, "key" varchar(255) not null, "fingerprint" varchar(255) not null, "result" text null, "expires_at" ${epochType} not null, primary key ("scope", "key"))`,
      );
      this.addSql('create index "idempotency_key_expires_at_index" on "idempotency_key" ("expires_at")');
    }
  };
}

const MIGRATIONS = {
  postgresql: [{ name: 'idempotency', class: createIdempotencyKeys('bigint') }],
  sqlite: [{ name: 'idempotency', class: createIdempotencyKeys('integer') }],
};

async function open(dialect: Dialect, context: Mocha.Context) {
  let url: string;
  let cleanUp: () => Promise<void>;
  if (dialect === 'postgresql') {
    const scratch = await createScratchDatabase(context);
    url = scratch.url;
    cleanUp = scratch.drop;
  } else {
    const directory = mkdtempSync(join(tmpdir(), 'platform-orm-'));
    url = `sqlite:${join(directory, 'test.db')}`;
    cleanUp = async () => rmSync(directory, { recursive: true, force: true });
  }
  const database = await Database.open(url, {
    entities: (d) => [idempotencyKeySchema(d)],
    migrations: MIGRATIONS,
    createDatabase: true,
  });
  await database.migrate();
  return { database, close: async () => (await database.close(), await cleanUp()) };
}

for (const dialect of ['sqlite', 'postgresql'] as const) {
  describe(`Database on ${dialect}`, () => {
    let subject: Awaited<ReturnType<typeof open>>;
    before(async function () {
      subject = await open(dialect, this);
    });
    after(async () => subject?.close());
    const count = async () =>
      Number(
        (await subject.database.session.all<{ n: number }>('select count(*) as "n" from "idempotency_key"'))[0]!.n,
      );
    const insert = (session = subject.database.session, key = `k${Math.random()}`, expiresAt = Date.now() + 60_000) =>
      session.run('insert into "idempotency_key" ("scope", "key", "fingerprint", "expires_at") values (?, ?, ?, ?)', [
        's',
        key,
        'f',
        expiresAt,
      ]);

    beforeEach(async () => subject.database.session.run('delete from "idempotency_key"'));

    it('runs a prepared statement with its parameters bound, in a transaction and outside one', async () => {
      const byKey = prepared('select "key" from "idempotency_key" where "scope" = ? and "key" = ?');
      await insert(undefined, 'a?b');
      expect(await subject.database.session.all(byKey, ['s', 'a?b'])).to.deep.equal([{ key: 'a?b' }]);
      expect(await subject.database.transaction((session) => session.all(byKey, ['s', 'a?b']))).to.deep.equal([
        { key: 'a?b' },
      ]);
      expect(await subject.database.session.all(byKey, ['s', "'; drop table idempotency_key; --"])).to.deep.equal([]);
    });

    it('never switches AsyncLocalStorage on: its promise hooks would tax every await of every request from then on', async () => {
      const runs = { count: 0 };
      // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be put back, and called with their this
      const original = { run: AsyncLocalStorage.prototype.run, enterWith: AsyncLocalStorage.prototype.enterWith };
      AsyncLocalStorage.prototype.run = function (
        this: AsyncLocalStorage<unknown>,
        ...args: Parameters<typeof original.run>
      ) {
        runs.count++;
        return original.run.apply(this, args);
      } as typeof original.run;
      AsyncLocalStorage.prototype.enterWith = function (this: AsyncLocalStorage<unknown>, store: unknown) {
        runs.count++;
        return original.enterWith.call(this, store);
      };
      try {
        await subject.database.transaction(async (session) => void (await insert(session)));
        await expect(
          subject.database.transaction(async (session) => (await insert(session), Promise.reject(new Error('no')))),
        ).to.be.rejectedWith('no');
        await subject.database.session.all('select 1 as "one"');
      } finally {
        Object.assign(AsyncLocalStorage.prototype, original);
      }
      expect(runs.count).to.equal(0);
    });

    it('commits a transaction’s statements together, and rolls them all back when its work throws', async () => {
      await subject.database.transaction(async (session) => {
        await insert(session);
        await insert(session);
      });
      expect(await count()).to.equal(2);
      await expect(
        subject.database.transaction(async (session) => {
          await insert(session);
          throw new Error('fail');
        }),
      ).to.be.rejectedWith('fail');
      expect(await count()).to.equal(2);
    });

    it('converts driver errors and reports them, not a half-written transaction', async () => {
      await expect(
        subject.database.transaction(async (session) => {
          await insert(session, 'same');
          await insert(session, 'same');
        }),
      ).to.be.rejectedWith(/unique|UNIQUE|duplicate/);
      expect(await count()).to.equal(0);
    });

    it('sweeps expired idempotency records in batches, and leaves live ones', async () => {
      const now = Date.now();
      for (let i = 0; i < 5; i++) await insert(undefined, `old-${i}`, now - 1);
      await insert(undefined, 'live', now + 60_000);
      expect(await sweepExpiredIdempotencyKeys(subject.database.session, now, 3)).to.equal(3);
      expect(await sweepExpiredIdempotencyKeys(subject.database.session, now, 3)).to.equal(2);
      expect(await sweepExpiredIdempotencyKeys(subject.database.session, now, 3)).to.equal(0);
      expect(await count()).to.equal(1);
    });

    it('answers whether the database is reachable, and the pool’s state', async () => {
      expect(await subject.database.isReady()).to.equal(true);
      const stats = subject.database.poolStats();
      expect(stats).to.have.all.keys('used', 'free', 'pending', 'max');
    });

    it('is ready while every connection is busy with statements that succeed, though its own query would wait', async () => {
      const burst = Array.from({ length: 400 }, () =>
        subject.database.transaction(async (session) => {
          await session.all('select count(*) as "n" from "idempotency_key"');
          await new Promise((resolve) => setImmediate(resolve));
          return session.all('select count(*) as "n" from "idempotency_key"');
        }),
      );
      try {
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await subject.database.isReady(1), 'statements answered since it was last asked').to.equal(true);
        await new Promise((resolve) => setTimeout(resolve, 20));
        const together = await Promise.all([subject.database.isReady(1), subject.database.isReady(1)]);
        expect(together, 'asked twice at once (status and checks): one answer for both').to.deep.equal([true, true]);
      } finally {
        await Promise.all(burst);
      }
      expect(await subject.database.isReady(1_000), 'idle: its own query answers').to.equal(true);
    });
  });
}

describe('prepared statements', () => {
  it('number their parameters for PostgreSQL once, leaving question marks in quotes alone', () => {
    expect(prepared(`select "a?" from "t" where "x" = ? and "y" = 'it''s ?' and "z" = ?`).numbered).to.equal(
      `select "a?" from "t" where "x" = $1 and "y" = 'it''s ?' and "z" = $2`,
    );
  });

  it('have a name of their own each', () => {
    expect(prepared('select 1').name).not.to.equal(prepared('select 1').name);
  });

  it('are prepared on the connection that runs them, on PostgreSQL', async function () {
    const scratch = await createScratchDatabase(this);
    const database = await Database.open(scratch.url, {
      entities: (d) => [idempotencyKeySchema(d)],
      migrations: MIGRATIONS,
      createDatabase: true,
    });
    try {
      const one = prepared('select ? :: int as "n"');
      const names = await database.transaction(async (session) => {
        expect(await session.all(one, [7])).to.deep.equal([{ n: 7 }]);
        return (await session.all<{ name: string }>('select "name" from pg_prepared_statements')).map(
          (row) => row.name,
        );
      });
      expect(names).to.include(one.name);
    } finally {
      await database.close();
      await scratch.drop();
    }
  });
});

describe('Database.open with instances starting together', () => {
  it('creates a missing PostgreSQL database once, however many race to create it', async function () {
    // A name of its own on the scratch server, dropped afterwards.
    const scratch = await createScratchDatabase(this);
    await scratch.drop();
    const opened = await Promise.all(
      Array.from({ length: 4 }, () =>
        Database.open(scratch.url, {
          entities: (d) => [idempotencyKeySchema(d)],
          migrations: MIGRATIONS,
          createDatabase: true,
        }),
      ),
    );
    try {
      const applied = await Promise.all(opened.map((database) => database.migrate()));
      expect(applied.flat()).to.deep.equal(['idempotency']);
    } finally {
      await Promise.all(opened.map((database) => database.close()));
      await scratch.drop();
    }
  });
});

describe('the idempotency sweeper on several instances at once (PostgreSQL)', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let instances: Database[] = [];
  before(async function () {
    scratch = await createScratchDatabase(this);
    // Two pools on one database: two instances of a service, each with its sweeper.
    instances = await Promise.all(
      [1, 2].map(() =>
        Database.open(scratch.url, { entities: (d) => [idempotencyKeySchema(d)], migrations: MIGRATIONS }),
      ),
    );
    await instances[0]!.migrate();
  });
  after(async () => {
    await Promise.all(instances.map((database) => database.close()));
    await scratch?.drop();
  });
  const [first, second] = [() => instances[0]!, () => instances[1]!];
  const now = Date.now();
  const fill = async (expired: number) => {
    await first().session.run('delete from "idempotency_key"');
    const values = Array.from({ length: expired }, (_, i) => `('inbox', 'old-${i}', 'f', ${now - 1 - i})`).join(', ');
    await first().session.run(
      `insert into "idempotency_key" ("scope", "key", "fingerprint", "expires_at") values ${values}, ('inbox', 'live', 'f', ${now + 60_000})`,
    );
  };
  const remaining = async () =>
    (await first().session.all<{ key: string }>('select "key" from "idempotency_key"')).map((row) => row.key);
  /** Sweeps in batches until a batch comes back empty, as each instance's sweeper does; answers how many it deleted. */
  const sweepAll = async (database: Database) => {
    let deleted = 0;
    for (let n = -1; n !== 0; deleted += n) n = await sweepExpiredIdempotencyKeys(database.session, now, 5);
    return deleted;
  };

  it('two sweepers at once delete every expired record exactly once between them, keep the live one, and neither fails', async () => {
    await fill(200);
    const [a, b] = await Promise.all([sweepAll(first()), sweepAll(second())]);
    expect(a + b).to.equal(200);
    expect(await remaining()).to.deep.equal(['live']);
  });

  it('a sweeper does not wait for the records another sweeper is deleting in an open batch: it takes the others', async () => {
    await fill(30);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let batchTaken!: () => void;
    const taken = new Promise<void>((resolve) => (batchTaken = resolve));
    // The first instance's batch is deleted but not committed: its rows stay locked until `release`.
    const slow = first().transaction(async (session) => {
      const n = await sweepExpiredIdempotencyKeys(session, now, 5);
      batchTaken();
      await held;
      return n;
    });
    try {
      await taken;
      // Bounded only so that a sweeper that waits for the locked rows fails here instead of hanging the suite.
      const other = await Promise.race([
        sweepAll(second()),
        new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 10_000)),
      ]);
      expect(other, 'the second sweeper waited for the first one’s locked rows').to.equal(25);
    } finally {
      release();
    }
    expect(await slow).to.equal(5);
    expect(await remaining()).to.deep.equal(['live']);
  });
});
