import pg from 'pg';

/** The server the PostgreSQL suites use; its database only serves to create and drop scratch ones. */
export const POSTGRES_ADMIN_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** In CI (or with REQUIRE_POSTGRES=1) a missing server fails the run instead of skipping. */
export const postgresRequired = process.env.REQUIRE_POSTGRES === '1' || process.env.CI === 'true';

export interface ScratchDatabase {
  readonly url: string;
  readonly drop: () => Promise<void>;
}

/**
 * Runs one statement (create, drop, vacuum…) over a connection of its own, on the admin database unless told another;
 * answers its rows.
 */
export async function adminQuery(
  sql: string,
  connectionString = POSTGRES_ADMIN_URL,
): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/** The URL of another database on the admin server. */
export function databaseUrl(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Creates an empty database for one suite and answers its URL. When the server
 * cannot be reached, fails if PostgreSQL is required, else skips the suite with a notice.
 */
export async function createScratchDatabase(context: Mocha.Context): Promise<ScratchDatabase> {
  const name = `test_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
  try {
    await adminQuery(`create database "${name}"`);
  } catch (error) {
    if (postgresRequired)
      throw new Error(`PostgreSQL is required but unreachable at ${POSTGRES_ADMIN_URL}: ${String(error)}`, {
        cause: error,
      });
    console.warn(
      `  ! PostgreSQL unreachable at ${POSTGRES_ADMIN_URL} (${String(error)}): skipping "${context.test?.parent?.fullTitle()}". Set REQUIRE_POSTGRES=1 to fail instead.`,
    );
    context.skip();
  }
  return {
    url: databaseUrl(name),
    drop: async () => void (await adminQuery(`drop database if exists "${name}" with (force)`)),
  };
}
