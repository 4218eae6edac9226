import type { Platform } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
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
  /** The text with PostgreSQL's numbered parameters ($1, $2…) in place of `?`, worked out once. */
  readonly numbered: string;
}

let preparedCount = 0;

/** `?` → `$1`, `$2`…, outside quoted strings and identifiers (a fixed statement's text, so done once). */
function numberParameters(sql: string): string {
  let count = 0;
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (token) => (token === '?' ? `$${++count}` : token));
}

/** Names a fixed statement text for preparing; call it once per text (at module or cache level), not per request. */
export function prepared(sql: string): PreparedStatement {
  return { sql, name: `stmt_${++preparedCount}`, numbered: numberParameters(sql) };
}

/**
 * Runs statements on MikroORM's knex (`em.getKnex()`, the pool it configured):
 * on one transaction handed over explicitly, or outside any, each statement
 * then taking a pooled connection for itself. Parameters travel as bindings,
 * never formatted into the text, and on PostgreSQL a `prepared` statement is
 * parsed and planned once per connection (ADR 0014). Driver errors keep their
 * codes, which is all the classification needs. A session whose transaction
 * has ended refuses to run anything: work scheduled inside a transaction
 * cannot leak onto a connection back in the pool.
 */
export class SqlSession {
  private endedAs: string | undefined;

  constructor(
    private readonly knex: Knex,
    /** What the custom column types convert values for. */
    readonly platform: Platform,
    readonly dialect: Dialect,
    private readonly outcomes: StatementOutcomes,
    private readonly transaction?: Knex.Transaction,
  ) {}

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
    const query =
      typeof statement !== 'string' && this.dialect === 'postgresql'
        ? // Numbered once, with its values handed to pg as they are (knex merges `options` into pg's query config):
          // knex's rewriting of `?` on every run is skipped, and the name makes it a prepared statement.
          this.knex.raw(statement.numbered).options({ name: statement.name, values: params })
        : this.knex.raw(typeof statement === 'string' ? statement : statement.sql, params as Knex.RawBinding[]);
    if (this.transaction) query.transacting(this.transaction);
    try {
      const result: unknown = await query;
      this.outcomes.succeeded();
      return result;
    } catch (error) {
      throw this.outcomes.failed(error);
    }
  }
}
