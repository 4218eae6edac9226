import { type EntitySchema, MikroORM, type MigrationObject, type Options, type Platform } from '@mikro-orm/core';
import type { AbstractSqlConnection, Knex } from '@mikro-orm/knex';
import { Migrator } from '@mikro-orm/migrations';
import { BetterSqliteDriver } from '@mikro-orm/better-sqlite';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { UnavailableError } from '@platform/kernel';
import { existsSync, mkdirSync, statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isDatabaseUnavailable } from './database-errors';
import { type DatabaseLocation, type Dialect, parseDatabaseUrl } from './database-url';
import { SqlSession, type StatementOutcomes } from './sql-session';

/** The connection pool's state, for metrics. */
export type PoolStats = {
  readonly used: number;
  readonly free: number;
  readonly pending: number;
  readonly max: number;
};

/** Where the database says what happened to it; the service's logger fits. */
export interface DatabaseLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
}

export interface DatabaseOptions {
  /** The mapping of every table the service's migrations create, per dialect (money is stored differently). */
  readonly entities: (dialect: Dialect) => EntitySchema[];
  readonly migrations: Readonly<Record<Dialect, readonly MigrationObject[]>>;
  /** Largest number of pooled connections (PostgreSQL); two at least, as migrations hold one for their lock. */
  readonly poolSize?: number;
  /** Longest a statement may run, and on SQLite a lock may be waited for. */
  readonly queryTimeoutMs?: number;
  /** Longest a request waits for a pooled connection, or for a new one to open. */
  readonly acquireTimeoutMs?: number;
  /** Create the database (PostgreSQL) or the file and its folder (SQLite) when missing; otherwise their absence stops the start. */
  readonly createDatabase?: boolean;
  readonly logger?: DatabaseLogger;
  readonly debug?: boolean;
}

export const DEFAULT_QUERY_TIMEOUT_MS = 5_000;
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 2_000;
/** Below this much free disk a SQLite database counts as full: its next write may fail. */
const MIN_FREE_DISK_BYTES = 1024 * 1024;
/** How long a client is told to wait before retrying while the database is unavailable. */
const RETRY_AFTER_SECONDS = 2;

// Any fixed number: it only has to be the same in every instance of every service sharing a database.
const MIGRATION_LOCK_KEY = 7_401_150_221;

const SILENT: DatabaseLogger = { info() {}, warn() {}, debug() {} };

/** A start-up failure whose message says what to do; main prints it as one line. */
export class DatabaseStartError extends Error {
  override name = 'DatabaseStartError';
}

function ormOptions({ dialect, target }: DatabaseLocation, options: DatabaseOptions, logger: DatabaseLogger): Options {
  const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const acquireTimeoutMs = options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS;
  const common = {
    entities: options.entities(dialect),
    extensions: [Migrator],
    debug: options.debug ?? false,
    // MikroORM's own lines (and knex's warnings) become debug lines of the service's JSON log, never raw text on stdout.
    logger: (message: string) => logger.debug('mikro-orm', { detail: message }),
    discovery: { warnWhenNoEntities: false },
    // Every statement runs on a fork handed over explicitly: nothing may use the global EntityManager.
    allowGlobalContext: false,
    ensureDatabase: dialect === 'postgresql' && (options.createDatabase ?? false),
    migrations: { transactional: true, allOrNothing: true, snapshot: false, silent: true, migrationsList: [...options.migrations[dialect]] },
  };
  const knexLog = { warn: (message: unknown) => logger.debug('knex', { detail: String(message) }), error: (message: unknown) => logger.debug('knex', { detail: String(message) }), deprecate() {}, debug() {} };
  if (dialect === 'postgresql') {
    return {
      ...common,
      driver: PostgreSqlDriver,
      clientUrl: target,
      // A pool that cannot hand out a connection in time fails the request, instead of queueing it behind a stalled database.
      pool: { min: 0, max: options.poolSize ?? 10, acquireTimeoutMillis: acquireTimeoutMs, createTimeoutMillis: acquireTimeoutMs, propagateCreateError: true },
      driverOptions: {
        log: knexLog,
        connection: {
          connectionTimeoutMillis: acquireTimeoutMs,
          // The server stops a statement that runs too long; the driver gives up on one whose answer never comes (a stalled network).
          statement_timeout: queryTimeoutMs,
          query_timeout: queryTimeoutMs + 1000,
          keepAlive: true,
        },
      },
    };
  }
  return {
    ...common,
    driver: BetterSqliteDriver,
    dbName: target,
    driverOptions: { log: knexLog },
    pool: {
      acquireTimeoutMillis: acquireTimeoutMs,
      // Writers from another process wait for the lock (at most the query timeout) instead of failing at once; WAL lets readers go on meanwhile.
      afterCreate: (connection: { pragma(sql: string): unknown }, done: (error: Error | null) => void) => {
        connection.pragma(`busy_timeout = ${queryTimeoutMs}`);
        connection.pragma('journal_mode = wal');
        done(null);
      },
    },
  } as Options;
}

/**
 * Creates a folder and its missing parents one level at a time. Node's own
 * `mkdirSync(path, { recursive: true })` never returns for some paths (under
 * /proc it loops on ENOENT), so each level is made, and can fail, on its own.
 */
function createFolder(folder: string): void {
  const missing: string[] = [];
  for (let current = folder; !existsSync(current); current = dirname(current)) {
    if (dirname(current) === current) break;
    missing.unshift(current);
  }
  for (const level of missing) mkdirSync(level);
}

/** SQLite creates a missing file but not a missing folder, and a wrong path should not become an empty catalogue. */
function prepareSqliteFile(path: string, create: boolean): void {
  if (path === ':memory:') return;
  const file = resolve(path);
  if (existsSync(file)) return;
  if (!create) throw new DatabaseStartError(`SQLite database ${file} does not exist; create it, or set DB_CREATE_DATABASE=true to let the service create it.`);
  try {
    createFolder(dirname(file));
  } catch (error) {
    throw new DatabaseStartError(`Cannot create the folder ${dirname(file)} for the SQLite database: ${(error as Error).message}`);
  }
}

/**
 * Another instance created the database between our check and our create:
 * PostgreSQL says duplicate_database (42P04), or, when both creates run at
 * the same moment, a unique violation (23505) on pg_database's name index.
 */
function isDuplicateDatabase(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause && depth < 4; depth++, cause = (cause as { cause?: unknown; previous?: unknown }).previous ?? (cause as { cause?: unknown }).cause) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (code === '42P04' || (code === '23505' && String(message).includes('pg_database_datname_index'))) return true;
  }
  return false;
}

/** What a failed connection check means, said so an operator knows what to do. */
function explainConnectionFailure({ dialect, target }: DatabaseLocation, error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (dialect === 'sqlite') return `Cannot open SQLite database ${resolve(target)}: ${message ?? String(error)}`;
  const url = new URL(target);
  const where = `${url.hostname}:${url.port || 5432}`;
  const database = decodeURIComponent(url.pathname.slice(1)) || '(default)';
  if (code === '3D000') return `PostgreSQL database "${database}" does not exist on ${where}; create it, or set DB_CREATE_DATABASE=true to let the service create it.`;
  if (code === '28000' || code === '28P01') return `PostgreSQL on ${where} refused the connection for user "${decodeURIComponent(url.username) || '(default)'}": ${message}`;
  if (code === 'ECONNREFUSED') return `PostgreSQL is not reachable at ${where} (connection refused): is it running?`;
  return `Cannot connect to PostgreSQL database "${database}" on ${where}: ${message ?? String(error)}`;
}

/**
 * One service's database, opened from its URL: SQLite or PostgreSQL through
 * MikroORM. Statements run through a SqlSession, either the shared one outside
 * any transaction or one bound to a transaction for the duration of `transaction`.
 * Statements and pool waits are bounded; a database that cannot be used
 * surfaces as UnavailableError, and its going away and coming back are logged
 * once each.
 */
export class Database {
  /** Statements outside any transaction: each takes a pooled connection for itself. */
  readonly session: SqlSession;
  private readonly knex: Knex;
  private readonly platform: Platform;
  private available = true;
  private writable = true;
  private readonly outcomes: StatementOutcomes;

  private constructor(
    readonly orm: MikroORM,
    readonly location: DatabaseLocation,
    private readonly logger: DatabaseLogger,
  ) {
    this.outcomes = { succeeded: () => this.markAvailable(), failed: (error) => this.classify(error) };
    this.knex = (orm.em.getConnection() as AbstractSqlConnection).getKnex();
    this.platform = orm.em.getPlatform();
    this.session = new SqlSession(this.knex, this.platform, location.dialect, this.outcomes);
  }

  get dialect(): Dialect {
    return this.location.dialect;
  }

  /** Opens and checks the connection; a missing, unreachable or refusing database is a DatabaseStartError that says why. */
  static async open(url: string, options: DatabaseOptions): Promise<Database> {
    let location: DatabaseLocation;
    try {
      location = parseDatabaseUrl(url);
      if (location.dialect === 'postgresql') new URL(location.target);
    } catch (error) {
      throw new DatabaseStartError(error instanceof TypeError ? `DATABASE_URL is not a valid URL: ${url.replace(/\/\/[^@/]*@/, '//***@')}` : (error as Error).message);
    }
    if (location.dialect === 'sqlite') prepareSqliteFile(location.target, options.createDatabase ?? false);
    const logger = options.logger ?? SILENT;
    let orm: MikroORM;
    try {
      orm = await MikroORM.init(ormOptions(location, options, logger));
    } catch (error) {
      // Instances started together may all find the database missing and race to create it: the losers find it made.
      if (!isDuplicateDatabase(error)) throw new DatabaseStartError(explainConnectionFailure(location, error));
      try {
        orm = await MikroORM.init(ormOptions(location, options, logger));
      } catch (again) {
        throw new DatabaseStartError(explainConnectionFailure(location, again));
      }
    }
    const check = await orm.checkConnection();
    if (!check.ok) {
      await orm.close(true).catch(() => undefined);
      throw new DatabaseStartError(explainConnectionFailure(location, check.error ?? new Error(check.reason)));
    }
    return new Database(orm, location, logger);
  }

  /**
   * Runs `work` in one transaction on a session bound to it: committed when the
   * work resolves, rolled back when it throws. The session refuses statements
   * once the transaction has ended.
   */
  async transaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T> {
    // knex's own transaction on MikroORM's pool, not em.begin/commit: em.commit flushes MikroORM's unit of
    // work (empty here: nothing is an entity), and the flush switches on AsyncLocalStorage, whose promise
    // hooks then tax every await of every request for the life of the process (ADR 0014).
    let transaction: Knex.Transaction;
    try {
      transaction = await this.knex.transaction();
    } catch (error) {
      throw this.classify(error);
    }
    const session = new SqlSession(this.knex, this.platform, this.dialect, this.outcomes, transaction);
    try {
      const result = await work(session);
      session.end('committed');
      await transaction.commit();
      await transaction.executionPromise;
      return result;
    } catch (error) {
      session.end('rolled back');
      if (!transaction.isCompleted()) await transaction.rollback().catch(() => undefined);
      throw error instanceof UnavailableError ? error : this.classify(error);
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

  /**
   * Whether the database takes writes. SQLite: the file is below its page
   * limit, its disk has room, and rewriting its header works (a read-only file
   * fails that); PostgreSQL: the server is not read-only.
   */
  async canWrite(): Promise<boolean> {
    try {
      if (this.dialect === 'sqlite') {
        const [{ page_count: pages = 0 } = {}] = await this.session.all<{ page_count: number }>('pragma page_count');
        const [{ max_page_count: limit = Infinity } = {}] = await this.session.all<{ max_page_count: number }>('pragma max_page_count');
        if (pages >= limit) return false;
        if (this.location.target !== ':memory:') {
          const disk = statfsSync(dirname(resolve(this.location.target)));
          if (disk.bavail * disk.bsize < MIN_FREE_DISK_BYTES) return false;
        }
        const [row] = await this.session.all<{ user_version: number }>('pragma user_version');
        await this.session.run(`pragma user_version = ${Number(row?.user_version ?? 0)}`);
      } else {
        const [row] = await this.session.all<{ read_only: string }>(`select current_setting('transaction_read_only') as "read_only", pg_is_in_recovery() as "recovering"`);
        if (row?.read_only === 'on' || (row as { recovering?: boolean } | undefined)?.recovering) return false;
      }
      this.writable = true;
      return true;
    } catch {
      return false;
    }
  }

  /** Readiness: the database answers a trivial query within `timeoutMs`, and takes writes (checked again only after a write failed). */
  async isReady(timeoutMs = 2000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((done) => (timer = setTimeout(() => done(false), timeoutMs)));
    const probe = (async () => (await this.session.all('select 1').then(() => true, () => false)) && (this.writable || (await this.canWrite())))();
    try {
      return await Promise.race([probe, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The connection pool's state, for metrics. knex types its pool (tarn); MikroORM does not expose one. */
  poolStats(): PoolStats | undefined {
    const pool = this.knex.client.pool;
    return pool ? { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires(), max: pool.max } : undefined;
  }

  /** Closes the pool; connections a stalled database still holds are abandoned after `timeoutMs`. Answers whether it closed cleanly. */
  async close(timeoutMs = 2000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((done) => (timer = setTimeout(() => done(false), timeoutMs)));
    try {
      return await Promise.race([this.orm.close(true).then(() => true, () => false), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private markAvailable(): void {
    if (this.available) return;
    this.available = true;
    this.logger.info('database reachable again');
  }

  /** An UnavailableError for failures that mean "not now", logged once per outage; anything else as it is. */
  private classify(error: unknown): unknown {
    if (error instanceof UnavailableError) return error;
    if (!isDatabaseUnavailable(error)) return error;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^SQLITE_(READONLY|FULL)|^53100$|^25006$/.test(code)) this.writable = false;
    if (this.available) {
      this.available = false;
      this.logger.warn('database unavailable: requests answer 503 until it is back', { error: (error as Error).message ?? String(error) });
    }
    return new UnavailableError('DATABASE_UNAVAILABLE', 'The database cannot be used right now; try again shortly.', RETRY_AFTER_SECONDS, { cause: error });
  }
}
