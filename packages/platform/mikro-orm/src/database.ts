import { type EntitySchema, MikroORM, type MigrationObject, type Options } from '@mikro-orm/core';
import type { AbstractSqlConnection, SqlEntityManager } from '@mikro-orm/knex';
import { Migrator } from '@mikro-orm/migrations';
import { BetterSqliteDriver } from '@mikro-orm/better-sqlite';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { type DatabaseLocation, type Dialect, parseDatabaseUrl } from './database-url';
import { SqlSession } from './sql-session';

/** The connection pool's state, for metrics. */
export type PoolStats = {
  readonly used: number;
  readonly free: number;
  readonly pending: number;
  readonly max: number;
};

export interface DatabaseOptions {
  /** The mapping of every table the service's migrations create, per dialect (money is stored differently). */
  readonly entities: (dialect: Dialect) => EntitySchema[];
  readonly migrations: Readonly<Record<Dialect, readonly MigrationObject[]>>;
  /** Largest number of pooled connections (PostgreSQL); two at least, as migrations hold one for their lock. */
  readonly poolSize?: number;
  readonly debug?: boolean;
}

// Any fixed number: it only has to be the same in every instance of every service sharing a database.
const MIGRATION_LOCK_KEY = 7_401_150_221;

function ormOptions({ dialect, target }: DatabaseLocation, options: DatabaseOptions): Options {
  const common = {
    entities: options.entities(dialect),
    extensions: [Migrator],
    debug: options.debug ?? false,
    discovery: { warnWhenNoEntities: false },
    // Every statement runs on a fork handed over explicitly: nothing may use the global EntityManager.
    allowGlobalContext: false,
    migrations: { transactional: true, allOrNothing: true, snapshot: false, silent: true, migrationsList: [...options.migrations[dialect]] },
  };
  if (dialect === 'postgresql') {
    return { ...common, driver: PostgreSqlDriver, clientUrl: target, pool: { min: 0, max: options.poolSize ?? 10 } };
  }
  return {
    ...common,
    driver: BetterSqliteDriver,
    dbName: target,
    pool: {
      // Writers from another process wait for the lock instead of failing with SQLITE_BUSY; WAL lets readers go on meanwhile.
      afterCreate: (connection: { pragma(sql: string): unknown }, done: (error: Error | null) => void) => {
        connection.pragma('busy_timeout = 5000');
        connection.pragma('journal_mode = wal');
        done(null);
      },
    },
  } as Options;
}

/**
 * One service's database, opened from its URL: SQLite or PostgreSQL through
 * MikroORM. Statements run through a SqlSession, either the shared one outside
 * any transaction or one bound to a transaction for the duration of `transaction`.
 */
export class Database {
  /** Statements outside any transaction: each takes a pooled connection for itself. */
  readonly session: SqlSession;

  private constructor(
    readonly orm: MikroORM,
    readonly dialect: Dialect,
  ) {
    // A fork, not the global EntityManager: it never looks for a transaction in AsyncLocalStorage.
    this.session = new SqlSession(orm.em.fork() as SqlEntityManager, dialect);
  }

  static async open(url: string, options: DatabaseOptions): Promise<Database> {
    const location = parseDatabaseUrl(url);
    const orm = await MikroORM.init(ormOptions(location, options));
    return new Database(orm, location.dialect);
  }

  /**
   * Runs `work` in one transaction on a session bound to it: committed when the
   * work resolves, rolled back when it throws. The session refuses statements
   * once the transaction has ended.
   */
  async transaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T> {
    let session: SqlSession | undefined;
    try {
      const result = await (this.session.em as SqlEntityManager).transactional(async (em) => {
        session = new SqlSession(em as SqlEntityManager, this.dialect);
        return work(session);
      });
      session?.end('committed');
      return result;
    } catch (error) {
      session?.end('rolled back');
      throw error;
    }
  }

  /**
   * Applies pending migrations and answers their names. On PostgreSQL an
   * advisory lock, held by a transaction for the whole run, makes instances that
   * start together take turns: the later ones find nothing left to apply.
   */
  async migrate(): Promise<string[]> {
    const run = async () => (await this.orm.getMigrator().up()).map((migration) => migration.name);
    if (this.dialect !== 'postgresql') return run();
    return this.transaction(async (lock) => {
      await lock.all('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
      return run();
    });
  }

  /** The connection pool's state, for metrics. knex types its pool (tarn); MikroORM does not expose one. */
  poolStats(): PoolStats | undefined {
    const pool = (this.orm.em.getConnection() as AbstractSqlConnection).getKnex().client.pool;
    return pool ? { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires(), max: pool.max } : undefined;
  }

  /** True when the database answers a trivial query within `timeoutMs`: a hung database must not hang the readiness probe. */
  async isReachable(timeoutMs = 2000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const ping = this.session.all('select 1').then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([ping, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.orm.close(true);
  }
}
