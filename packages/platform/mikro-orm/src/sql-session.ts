import type { Knex } from '@mikro-orm/knex';
import type { SqlEntityManager } from '@mikro-orm/knex';
import type { Dialect } from './database-url';

export type Row = Record<string, unknown>;

/** How a session tells its database that a statement worked or could not reach it. */
export interface StatementOutcomes {
  succeeded(): void;
  /** Answers the error to throw instead: an UnavailableError when the database cannot be used now. */
  failed(error: unknown): unknown;
}

/**
 * A statement a repository runs again and again. On PostgreSQL it is a named
 * prepared statement: parsed and planned once per connection, then run by name.
 */
export interface PreparedStatement {
  readonly sql: string;
  readonly name: string;
}

let preparedCount = 0;

/** Names a fixed statement text for preparing; call it once per text (at module or cache level), not per request. */
export function prepared(sql: string): PreparedStatement {
  return { sql, name: `stmt_${++preparedCount}` };
}

/**
 * Runs statements on one EntityManager: a fork bound to a transaction, or a
 * fork outside any, whose statements each take a pooled connection.
 *
 * Statements go through the knex instance MikroORM configured and pools
 * (`em.getKnex()`), on the fork's transaction (`em.getTransactionContext()`),
 * with their parameters as bindings: `em.execute` formats parameters into the
 * text, which rules out prepared statements, and on PostgreSQL parsing and
 * planning each statement again cost a third of a read (ADR 0014). Driver
 * errors keep their codes, which is all the classification needs. A session
 * whose transaction has ended refuses to run anything: work scheduled inside a
 * transaction cannot leak onto a connection back in the pool.
 */
export class SqlSession {
  private endedAs: string | undefined;
  private readonly knex: Knex;

  constructor(
    readonly em: SqlEntityManager,
    readonly dialect: Dialect,
    private readonly outcomes: StatementOutcomes,
  ) {
    this.knex = em.getKnex();
  }

  /** The rows a query answers (reads, and writes with `returning`). Parameters are `?`. */
  async all<R extends Row = Row>(statement: string | PreparedStatement, params: readonly unknown[] = []): Promise<R[]> {
    const result = await this.execute(statement, params);
    // knex answers PostgreSQL's result, or better-sqlite3's rows (a reader) or run result (a writer without `returning`).
    if (this.dialect === 'postgresql') return (result as { rows: R[] }).rows;
    return Array.isArray(result) ? (result as R[]) : [];
  }

  /** How many rows a write changed. */
  async run(statement: string | PreparedStatement, params: readonly unknown[] = []): Promise<number> {
    const result = await this.execute(statement, params);
    if (this.dialect === 'postgresql') return (result as { rowCount: number | null }).rowCount ?? 0;
    return Array.isArray(result) ? result.length : ((result as { changes?: number }).changes ?? 0);
  }

  /** Called when the transaction commits or rolls back. */
  end(how: 'committed' | 'rolled back'): void {
    this.endedAs = how;
  }

  private async execute(statement: string | PreparedStatement, params: readonly unknown[]): Promise<unknown> {
    if (this.endedAs) throw new Error(`This transaction has ${this.endedAs}: it cannot run statements any more.`);
    const sql = typeof statement === 'string' ? statement : statement.sql;
    const query = this.knex.raw(sql, params as Knex.RawBinding[]);
    if (typeof statement !== 'string' && this.dialect === 'postgresql') query.options({ name: statement.name });
    const transaction = this.em.getTransactionContext<Knex.Transaction>();
    if (transaction) query.transacting(transaction);
    try {
      const result: unknown = await query;
      this.outcomes.succeeded();
      return result;
    } catch (error) {
      throw this.outcomes.failed(error);
    }
  }
}
