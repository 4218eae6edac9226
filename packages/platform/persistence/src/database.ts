import {
  type EntitySchema,
  MikroORM,
  type MigrationObject,
  type Options,
  type Platform,
  type Routine,
} from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { PostgresDialect, SqliteDialect } from 'kysely';
import type pg from 'pg';
import { UnavailableError } from '@platform/kernel';
import { existsSync, mkdirSync, statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isDatabaseUnavailable } from './database-errors';
import { type DatabaseLocation, type Dialect, parseDatabaseUrl } from './database-url';
import { clientRunner, createPostgresDatabaseIfMissing, createPostgresPool, poolRunner } from './postgres-pool';
import { SqlSession, type StatementOutcomes } from './sql-session';
import { SqliteConnection } from './sqlite-connection';

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
  /**
   * Create the database (PostgreSQL) or the file and its folder (SQLite) when missing; otherwise their absence stops
   * the start.
   */
  readonly createDatabase?: boolean;
  readonly logger?: DatabaseLogger;
  readonly debug?: boolean;
  /**
   * Tables the migrations create that no mapping can describe (SQLite's FTS5 virtual tables and their shadow tables):
   * the schema comparison leaves them be, as it leaves triggers.
   */
  readonly unmappedTables?: readonly (string | RegExp)[];
  /**
   * The dialect whose triggers the migrations keep outside the mappings (SQLite's FTS5 index is kept by triggers
   * no mapping describes): the schema comparison leaves that dialect's triggers be, and compares the others' with
   * the mappings, so a trigger nobody declared shows as drift.
   */
  readonly unmappedTriggers?: Dialect;
  /** The stored functions the service's statements call, per dialect: described once, generated into migrations. */
  readonly routines?: (dialect: Dialect) => Routine[];
}

export const DEFAULT_QUERY_TIMEOUT_MS = 5_000;
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 5_000;
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

/**
 * The driver handle the database owns: MikroORM gets a Kysely dialect over it, the sessions run their statements on it.
 */
type DriverHandle =
  | { readonly dialect: 'postgresql'; readonly pool: pg.Pool }
  | { readonly dialect: 'sqlite'; readonly connection: SqliteConnection };

function ormOptions(
  { target }: DatabaseLocation,
  handle: DriverHandle,
  options: DatabaseOptions,
  logger: DatabaseLogger,
): Partial<Options> {
  const common = {
    entities: options.entities(handle.dialect),
    routines: options.routines?.(handle.dialect) ?? [],
    extensions: [Migrator],
    debug: options.debug ?? false,
    // MikroORM's own lines become debug lines of the service's JSON log, never raw text on stdout.
    logger: (message: string) => logger.debug('mikro-orm', { detail: message }),
    discovery: { warnWhenNoEntities: false },
    // Nothing may use the global EntityManager: statements run on sessions handed over explicitly.
    allowGlobalContext: false,
    // The database exists by now: `open` created it when asked to (MikroORM's check would reconnect through a dialect
    // bound to it).
    ensureDatabase: false,
    schemaGenerator: {
      ignoreTriggers: options.unmappedTriggers === handle.dialect,
      skipTables: [...(options.unmappedTables ?? [])],
    },
    migrations: {
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
      migrationsList: [...options.migrations[handle.dialect]],
    },
  };
  if (handle.dialect === 'postgresql')
    return {
      ...common,
      driver: PostgreSqlDriver,
      clientUrl: target,
      driverOptions: new PostgresDialect({ pool: handle.pool }),
    };
  return {
    ...common,
    driver: SqliteDriver,
    dbName: target,
    driverOptions: new SqliteDialect({ database: handle.connection.handle }),
  };
}

/** Opens the pool or the file; a database that cannot be reached or created is a DatabaseStartError that says why. */
async function openHandle(
  location: DatabaseLocation,
  options: DatabaseOptions,
  logger: DatabaseLogger,
): Promise<DriverHandle> {
  const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const acquireTimeoutMs = options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS;
  try {
    if (location.dialect === 'sqlite')
      return {
        dialect: 'sqlite',
        connection: new SqliteConnection(location.target, { busyTimeoutMs: queryTimeoutMs, acquireTimeoutMs }),
      };
    if (options.createDatabase) await createPostgresDatabaseIfMissing(location.target, acquireTimeoutMs);
    const onConnectionError = (error: Error) => logger.debug('postgresql connection error', { error: error.message });
    return {
      dialect: 'postgresql',
      pool: createPostgresPool(location.target, {
        max: options.poolSize ?? 10,
        queryTimeoutMs,
        acquireTimeoutMs,
        onConnectionError,
      }),
    };
  } catch (error) {
    throw new DatabaseStartError(explainConnectionFailure(location, error));
  }
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
  if (!create)
    throw new DatabaseStartError(
      `SQLite database ${file} does not exist; create it, or set DB_CREATE_DATABASE=true to let the service create it.`,
    );
  try {
    createFolder(dirname(file));
  } catch (error) {
    throw new DatabaseStartError(
      `Cannot create the folder ${dirname(file)} for the SQLite database: ${(error as Error).message}`,
    );
  }
}

/** Closes the pool or the file, if MikroORM (whose Kysely closes them with itself) has not. */
async function closeHandle(handle: DriverHandle): Promise<void> {
  if (handle.dialect === 'sqlite') handle.connection.close();
  else if (!handle.pool.ended) await handle.pool.end();
}

/** What a failed connection check means, said so an operator knows what to do. */
function explainConnectionFailure({ dialect, target }: DatabaseLocation, error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (dialect === 'sqlite') return `Cannot open SQLite database ${resolve(target)}: ${message ?? String(error)}`;
  const url = new URL(target);
  const where = `${url.hostname}:${url.port || 5432}`;
  const database = decodeURIComponent(url.pathname.slice(1)) || '(default)';
  if (code === '3D000')
    return `PostgreSQL database "${database}" does not exist on ${where}; create it, or set DB_CREATE_DATABASE=true to let the service create it.`;
  if (code === '28000' || code === '28P01')
    return `PostgreSQL on ${where} refused the connection for user "${decodeURIComponent(url.username) || '(default)'}": ${message}`;
  if (code === 'ECONNREFUSED') return `PostgreSQL is not reachable at ${where} (connection refused): is it running?`;
  return `Cannot connect to PostgreSQL database "${database}" on ${where}: ${message ?? String(error)}`;
}

/**
 * One service's database, opened from its URL: SQLite or PostgreSQL, its
 * driver handle owned here and handed to MikroORM 7 through a Kysely dialect
 * (ADR 0018). MikroORM migrates and compares the schema; statements run
 * through a SqlSession on the same handle, either the shared one outside any
 * transaction or one bound to a transaction for the duration of
 * `transaction`. Statements and pool waits are bounded; a database that
 * cannot be used surfaces as UnavailableError, and its going away and coming
 * back are logged once each.
 */
export class Database {
  /** Statements outside any transaction: each takes a pooled connection for itself. */
  readonly session: SqlSession;
  private readonly platform: Platform;
  private available = true;
  private writable = true;
  /** Statements that have succeeded, and how many had when readiness last asked. */
  private succeeded = 0;
  private succeededWhenAsked = 0;
  /** The readiness answer under way, which callers meanwhile share. */
  private readiness: Promise<boolean> | undefined;
  private readonly outcomes: StatementOutcomes;

  private constructor(
    readonly orm: MikroORM,
    readonly location: DatabaseLocation,
    private readonly handle: DriverHandle,
    private readonly logger: DatabaseLogger,
  ) {
    this.outcomes = { succeeded: () => this.markSucceeded(), failed: (error) => this.classify(error) };
    this.platform = orm.em.getPlatform();
    const runner = handle.dialect === 'postgresql' ? poolRunner(handle.pool) : handle.connection.outside;
    this.session = new SqlSession(runner, this.platform, location.dialect, this.outcomes);
  }

  get dialect(): Dialect {
    return this.location.dialect;
  }

  /**
   * Opens and checks the connection; a missing, unreachable or refusing database is a DatabaseStartError that says why.
   */
  static async open(url: string, options: DatabaseOptions): Promise<Database> {
    let location: DatabaseLocation;
    try {
      location = parseDatabaseUrl(url);
      if (location.dialect === 'postgresql') new URL(location.target);
    } catch (error) {
      throw new DatabaseStartError(
        error instanceof TypeError
          ? `DATABASE_URL is not a valid URL: ${url.replace(/\/\/[^@/]*@/, '//***@')}`
          : (error as Error).message,
      );
    }
    if (location.dialect === 'sqlite') prepareSqliteFile(location.target, options.createDatabase ?? false);
    const logger = options.logger ?? SILENT;
    const handle = await openHandle(location, options, logger);
    let orm: MikroORM | undefined;
    let check: Awaited<ReturnType<MikroORM['checkConnection']>>;
    try {
      orm = await MikroORM.init(ormOptions(location, handle, options, logger));
      await orm.connect();
      check = await orm.checkConnection();
    } catch (error) {
      check = { ok: false, reason: (error as Error).message, error: error as Error };
    }
    if (!check.ok) {
      await (orm ? orm.close(true) : closeHandle(handle)).catch(() => undefined);
      throw new DatabaseStartError(explainConnectionFailure(location, check.error ?? new Error(check.reason)));
    }
    return new Database(orm!, location, handle, logger);
  }

  /**
   * Runs `work` in one transaction on a session bound to it: committed when the
   * work resolves, rolled back when it throws. The session refuses statements
   * once the transaction has ended. The transaction is the driver's own (one
   * pooled pg client with BEGIN/COMMIT, or the SQLite connection held), not
   * em.begin/commit: em.commit flushes MikroORM's unit of work (empty here:
   * nothing is an entity), and the flush switches on AsyncLocalStorage, whose
   * promise hooks then tax every await of every request for the life of the
   * process (ADR 0014).
   */
  async transaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T> {
    if (this.handle.dialect === 'sqlite') {
      let session: SqlSession | undefined;
      try {
        return await this.handle.connection.transaction(
          (runner) => work((session = new SqlSession(runner, this.platform, this.dialect, this.outcomes))),
          (how) => session?.end(how),
        );
      } catch (error) {
        throw error instanceof UnavailableError ? error : this.classify(error);
      }
    }
    let client: pg.PoolClient;
    try {
      client = await this.handle.pool.connect();
    } catch (error) {
      throw this.classify(error);
    }
    try {
      await client.query('begin');
    } catch (error) {
      client.release(true);
      throw this.classify(error);
    }
    const session = new SqlSession(clientRunner(client), this.platform, this.dialect, this.outcomes);
    try {
      const result = await work(session);
      session.end('committed');
      await client.query('commit');
      client.release();
      return result;
    } catch (error) {
      session.end('rolled back');
      // A connection that timed out or broke is dropped, and the server rolls back what it held, rather than sent a
      // rollback it may never answer.
      if (isDatabaseUnavailable(error)) client.release(true);
      else
        await client.query('rollback').then(
          () => client.release(),
          (failed: Error) => client.release(failed),
        );
      throw error instanceof UnavailableError ? error : this.classify(error);
    }
  }

  /**
   * Applies pending migrations and answers their names. On PostgreSQL an
   * advisory lock, held by a transaction for the whole run, makes instances that
   * start together take turns: the later ones find nothing left to apply.
   */
  async migrate(): Promise<string[]> {
    const run = async () => (await this.orm.migrator.up()).map((migration) => migration.name);
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
        const [{ max_page_count: limit = Infinity } = {}] = await this.session.all<{ max_page_count: number }>(
          'pragma max_page_count',
        );
        if (pages >= limit) return false;
        if (this.location.target !== ':memory:') {
          const disk = statfsSync(dirname(resolve(this.location.target)));
          if (disk.bavail * disk.bsize < MIN_FREE_DISK_BYTES) return false;
        }
        const [row] = await this.session.all<{ user_version: number }>('pragma user_version');
        await this.session.run(`pragma user_version = ${Number(row?.user_version ?? 0)}`);
      } else {
        const [row] = await this.session.all<{ read_only: string }>(
          `select current_setting('transaction_read_only') as "read_only", pg_is_in_recovery() as "recovering"`,
        );
        if (row?.read_only === 'on' || (row as { recovering?: boolean } | undefined)?.recovering) return false;
      }
      this.writable = true;
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Readiness: the database answers, and takes writes (checked again only after a write failed). Statements that
   * succeeded since it was last asked are the answer; with none, a trivial query must answer within `timeoutMs`.
   * A pool busy with a burst would keep that query waiting, and an instance serving well would be taken out.
   * Callers at the same time (a readiness request asks for its status and its checks at once) share one answer:
   * a second look would find no statement since the first and wait behind the pool after all.
   */
  isReady(timeoutMs = 2000): Promise<boolean> {
    this.readiness ??= this.askReadiness(timeoutMs).finally(() => (this.readiness = undefined));
    return this.readiness;
  }

  private async askReadiness(timeoutMs: number): Promise<boolean> {
    const answered = this.succeeded !== this.succeededWhenAsked;
    this.succeededWhenAsked = this.succeeded;
    if (answered && this.available && this.writable) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((done) => (timer = setTimeout(() => done(false), timeoutMs)));
    const probe = (async () =>
      (await this.session.all('select 1').then(
        () => true,
        () => false,
      )) &&
      (this.writable || (await this.canWrite())))();
    try {
      return await Promise.race([probe, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The connection pool's state, for metrics: pg's pool, or the one SQLite connection and who waits for it. */
  poolStats(): PoolStats {
    if (this.handle.dialect === 'sqlite') return this.handle.connection.stats();
    const pool = this.handle.pool;
    return {
      used: pool.totalCount - pool.idleCount,
      free: pool.idleCount,
      pending: pool.waitingCount,
      max: pool.options.max,
    };
  }

  /**
   * Closes MikroORM and the pool; connections a stalled database still holds are abandoned after `timeoutMs`. Answers
   * whether it closed cleanly.
   */
  async close(timeoutMs = 2000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((done) => (timer = setTimeout(() => done(false), timeoutMs)));
    const closing = (async () => {
      await this.orm.close(true);
      await closeHandle(this.handle);
    })();
    try {
      return await Promise.race([
        closing.then(
          () => true,
          () => false,
        ),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private markSucceeded(): void {
    this.succeeded++;
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
      this.logger.warn('database unavailable: requests answer 503 until it is back', {
        error: (error as Error).message ?? String(error),
      });
    }
    return new UnavailableError(
      'DATABASE_UNAVAILABLE',
      'The database cannot be used right now; try again shortly.',
      RETRY_AFTER_SECONDS,
      { cause: error },
    );
  }
}
