import { type MikroORM, TransactionContext } from '@mikro-orm/core';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { createHash } from 'node:crypto';
import type { Dialect } from './product-schema';

export type Row = Record<string, unknown>;

/** The part of knex's client the runner uses: its pool, or, inside a transaction, the transaction's connection. */
interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Row[]; rowCount: number | null }>;
}

interface SqliteStatement {
  readonly reader: boolean;
  all(...params: unknown[]): Row[];
  run(...params: unknown[]): { changes: number };
}

interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}

/** Runs a statement and answers its rows (reads, and writes with RETURNING) or, for other writes, the rows it changed. */
export interface SqlRunner {
  all(sql: string, params: readonly unknown[]): Promise<Row[]>;
  run(sql: string, params: readonly unknown[]): Promise<number>;
}

/**
 * Runs the repository's few statements on MikroORM's own pool and
 * transactions, each prepared once per connection: named statements on
 * PostgreSQL, cached better-sqlite3 statements on SQLite. Through knex, every
 * query was parsed again (knex's better-sqlite3 client prepares each time) and
 * went through its query builder: see docs/performance.md.
 */
export function sqlRunner(orm: MikroORM, dialect: Dialect): SqlRunner {
  const pool = () => {
    const transaction = TransactionContext.getEntityManager(orm.em.name)?.getTransactionContext<{ client: PoolClient }>();
    return transaction?.client ?? ((orm.em.getConnection() as AbstractSqlConnection).getKnex().client as PoolClient);
  };
  async function withConnection<T>(work: (connection: unknown) => T | Promise<T>): Promise<T> {
    const client = pool();
    const connection = await client.acquireConnection();
    try {
      return await work(connection);
    } finally {
      await client.releaseConnection(connection);
    }
  }

  if (dialect === 'postgresql') {
    const names = new Map<string, { name: string; text: string }>();
    const prepared = (sql: string) => {
      let statement = names.get(sql);
      if (!statement) {
        let index = 0;
        // Named after the text itself, so two runners on one pool can never give one name to two statements.
        statement = { name: `stock_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`, text: sql.replace(/\?/g, () => `$${++index}`) };
        names.set(sql, statement);
      }
      return statement;
    };
    const query = (sql: string, params: readonly unknown[]) => withConnection((connection) => (connection as PgConnection).query({ ...prepared(sql), values: [...params] }));
    return {
      all: async (sql, params) => (await query(sql, params)).rows,
      run: async (sql, params) => (await query(sql, params)).rowCount ?? 0,
    };
  }

  const statements = new WeakMap<object, Map<string, SqliteStatement>>();
  const prepared = (connection: SqliteConnection, sql: string) => {
    let cache = statements.get(connection);
    if (!cache) statements.set(connection, (cache = new Map()));
    let statement = cache.get(sql);
    if (!statement) cache.set(sql, (statement = connection.prepare(sql)));
    return statement;
  };
  return {
    all: (sql, params) => withConnection((connection) => prepared(connection as SqliteConnection, sql).all(...params)),
    run: (sql, params) => withConnection((connection) => prepared(connection as SqliteConnection, sql).run(...params).changes),
  };
}
