import { createPostgreSqlTypeParsers } from '@mikro-orm/sql';
import pg from 'pg';
import array from 'postgres-array';
import {
  numberParameters,
  type PreparedStatement,
  type Row,
  type StatementResult,
  type StatementRunner,
} from './sql-session';

export interface PostgresPoolSettings {
  /** Largest number of pooled connections. */
  readonly max: number;
  readonly queryTimeoutMs: number;
  readonly acquireTimeoutMs: number;
  /** Where a dropped connection is reported: it must not become an uncaught 'error' event. */
  readonly onConnectionError: (error: Error) => void;
}

/**
 * The `pg.Pool` the database owns and hands to MikroORM through Kysely's
 * PostgresDialect (ADR 0018). MikroORM's own type parsers apply, as they do on
 * the pool MikroORM would make itself: dates, timestamps and intervals come
 * back as text, so no precision is lost.
 */
export function createPostgresPool(
  url: string,
  { max, queryTimeoutMs, acquireTimeoutMs, onConnectionError }: PostgresPoolSettings,
): pg.Pool {
  const types = new pg.TypeOverrides();
  for (const [oid, parser] of Object.entries(createPostgreSqlTypeParsers((value) => array.parse(value))))
    types.setTypeParser(Number(oid), parser);
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // A pool that cannot hand out a connection in time (or open a new one) fails the request, instead of queueing it
    // behind a stalled database.
    connectionTimeoutMillis: acquireTimeoutMs,
    // The server stops a statement that runs too long; the driver gives up on one whose answer never comes (a stalled
    // network).
    statement_timeout: queryTimeoutMs,
    query_timeout: queryTimeoutMs + 1000,
    keepAlive: true,
    types,
  });
  // pg-pool leaves a checked-out client's errors to its holder, and re-emits an idle client's on the pool: both are
  // only reported,
  // the statement in flight rejects by itself and the pool discards the broken client.
  pool.on('connect', (client) => client.on('error', onConnectionError));
  pool.on('error', onConnectionError);
  return pool;
}

/** A statement as pg takes it: named (prepared) when the repository marked it so, its `?` numbered. */
function query(statement: string | PreparedStatement, params: readonly unknown[]): pg.QueryConfig {
  return typeof statement === 'string'
    ? { text: numberParameters(statement), values: params as unknown[] }
    : { name: statement.name, text: statement.numbered, values: params as unknown[] };
}

function result({ rows, rowCount }: pg.QueryResult<Row>): StatementResult {
  return { rows, changes: rowCount ?? 0 };
}

/** Each statement on a pooled connection of its own. */
export function poolRunner(pool: pg.Pool): StatementRunner {
  return { execute: async (statement, params) => result(await pool.query<Row>(query(statement, params))) };
}

/** Statements on the one connection a transaction holds. */
export function clientRunner(client: pg.PoolClient): StatementRunner {
  return { execute: async (statement, params) => result(await client.query<Row>(query(statement, params))) };
}

/**
 * Creates the database of `url` when it is missing, from the server's
 * `postgres` database. Instances started together may race: the losers find
 * it made (PostgreSQL says duplicate_database, or a unique violation on
 * pg_database's name index when both creates run at the same moment).
 */
export async function createPostgresDatabaseIfMissing(url: string, connectTimeoutMs: number): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const management = new URL(url);
  management.pathname = '/postgres';
  const client = new pg.Client({ connectionString: management.toString(), connectionTimeoutMillis: connectTimeoutMs });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return;
    await client.query(`create database "${name.replaceAll('"', '""')}"`).catch((error: unknown) => {
      if (!isDuplicateDatabase(error)) throw error;
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}

function isDuplicateDatabase(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === '42P04' || (code === '23505' && String(message).includes('pg_database_datname_index'));
}
