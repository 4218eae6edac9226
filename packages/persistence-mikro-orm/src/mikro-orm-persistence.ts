import { type EntitySchema, MikroORM, type Options } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { BetterSqliteDriver } from '@mikro-orm/better-sqlite';
import { type DatabaseLocation, parseDatabaseUrl } from './database-url';
import { postgresqlMigrations } from './migrations/postgresql';
import { sqliteMigrations } from './migrations/sqlite';
import { MikroOrmIdempotencyStore } from './mikro-orm-idempotency-store';
import { MikroOrmProductRepository } from './mikro-orm-product-repository';
import { productSchema } from './product-schema';

/** The part of knex's pool (tarn) the metrics read. */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  readonly max: number;
}

export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

// Any fixed number: it only has to be the same in every instance of the service.
const MIGRATION_LOCK_KEY = 7_401_150_221;

export interface MikroOrmPersistenceOptions {
  /** How long an idempotency record is kept (default 24 h). */
  readonly idempotencyTtlMs?: number;
  /** Largest number of pooled connections (PostgreSQL). */
  readonly poolSize?: number;
  readonly debug?: boolean;
}

function ormOptions({ dialect, target }: DatabaseLocation, schema: EntitySchema, options: MikroOrmPersistenceOptions): Options {
  const common = {
    entities: [schema],
    extensions: [Migrator],
    debug: options.debug ?? false,
    discovery: { warnWhenNoEntities: false },
    // The repository runs plain statements on the connection and transactions use forks: nothing may touch the global EntityManager.
    allowGlobalContext: false,
  };
  const migrations = { transactional: true, allOrNothing: true, snapshot: false, silent: true };
  if (dialect === 'postgresql') {
    return {
      ...common,
      driver: PostgreSqlDriver,
      clientUrl: target,
      pool: { min: 0, max: options.poolSize ?? 10 },
      migrations: { ...migrations, migrationsList: postgresqlMigrations },
    };
  }
  return {
    ...common,
    driver: BetterSqliteDriver,
    dbName: target,
    // Writers from another process wait for the lock instead of failing with SQLITE_BUSY; WAL lets readers go on meanwhile.
    pool: {
      afterCreate: (connection: { pragma(sql: string): unknown }, done: (error: Error | null) => void) => {
        connection.pragma('busy_timeout = 5000');
        connection.pragma('journal_mode = wal');
        done(null);
      },
    },
    migrations: { ...migrations, migrationsList: sqliteMigrations },
  } as Options;
}

/** The MikroORM adapter, open on one database: the repository plus what the composition root needs around it. */
export class MikroOrmPersistence {
  readonly repository: MikroOrmProductRepository;
  readonly idempotency: MikroOrmIdempotencyStore;

  private constructor(
    readonly orm: MikroORM,
    readonly location: DatabaseLocation,
    options: MikroOrmPersistenceOptions,
  ) {
    this.repository = new MikroOrmProductRepository(orm, location.dialect);
    this.idempotency = new MikroOrmIdempotencyStore(orm, options.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS);
  }

  static async open(databaseUrl: string, options: MikroOrmPersistenceOptions = {}): Promise<MikroOrmPersistence> {
    const location = parseDatabaseUrl(databaseUrl);
    const orm = await MikroORM.init(ormOptions(location, productSchema(location.dialect), options));
    return new MikroOrmPersistence(orm, location, options);
  }

  /**
   * Applies pending migrations and answers their names. On PostgreSQL an advisory
   * lock, held by a transaction for the whole run, makes instances that start
   * together take turns: the later ones find nothing left to apply.
   */
  async migrate(): Promise<string[]> {
    const em = this.orm.em.fork() as SqlEntityManager;
    const run = async () => (await this.orm.getMigrator().up()).map((m) => m.name);
    if (this.location.dialect !== 'postgresql') return run();
    return em.getKnex().transaction(async (lock) => {
      await lock.raw('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
      return run();
    });
  }

  /** The connection pool's state, for metrics. */
  poolStats(): { used: number; free: number; pending: number; max: number } | undefined {
    const pool = (this.orm.em.getConnection() as unknown as { getKnex(): { client: { pool?: TarnPool } } }).getKnex().client.pool;
    return pool ? { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires(), max: pool.max } : undefined;
  }

  /** True when the database answers a trivial query within `timeoutMs`: a hung database must not hang the readiness probe. */
  async isReachable(timeoutMs = 2000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const ping = (this.orm.em.fork() as SqlEntityManager).execute('select 1').then(
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
