import type { Platform } from '@mikro-orm/core';
import { inChildSpan, SpanKind, tracingIsOn } from '@platform/runtime';
import type { Dialect } from './database-url';

export type Row = Record<string, unknown>;

/** How a session tells its database that a statement worked or could not reach it. */
export interface StatementOutcomes {
  succeeded(): void;
  /** Answers the error to throw instead: an UnavailableError when the database cannot be used now. */
  failed(error: unknown): unknown;
}

/**
 * A statement a repository runs again and again: on PostgreSQL a named
 * prepared statement, parsed and planned once per connection, then run by
 * name; on SQLite one cached compiled statement per text.
 */
export interface PreparedStatement {
  readonly sql: string;
  readonly name: string;
  /** The text with PostgreSQL's numbered parameters ($1, $2…) in place of `?`, worked out once. */
  readonly numbered: string;
}

let preparedCount = 0;

/** `?` → `$1`, `$2`…, outside quoted strings and identifiers. */
export function numberParameters(sql: string): string {
  let count = 0;
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (token) => (token === '?' ? `$${++count}` : token));
}

/** Names a fixed statement text for preparing; call it once per text (at module or cache level), not per request. */
export function prepared(sql: string): PreparedStatement {
  return { sql, name: `stmt_${++preparedCount}`, numbered: numberParameters(sql) };
}

/**
 * A prepared statement that says what it takes and answers: its parameters as
 * a (labelled) tuple, its rows as an interface, so a call with the wrong
 * parameters or a read of a column it does not answer fails to compile. The
 * types only describe the text: keep them beside it.
 */
export interface Query<Params extends readonly unknown[], Result extends Row = Row> extends PreparedStatement {
  /** Never set: the types of a call's parameters and rows. */
  readonly types?: { readonly params: Params; readonly row: Result };
}

/** `prepared`, typed: `query<[productId: number], { id: number }>('select "id" from "product" where "id" = ?')`. */
export function query<Params extends readonly unknown[], Result extends Row = Row>(sql: string): Query<Params, Result> {
  return prepared(sql);
}

/**
 * A statement's span name: its operation and the table it names first (`INSERT outbox_message`), low in cardinality as
 * OpenTelemetry's database conventions ask; the text itself, parameters as `?`, is an attribute.
 */
export function statementSpanName(sql: string): string {
  const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  const table = /\b(?:from|into|update|join)\s+"?([\w.]+)"?/i.exec(sql)?.[1];
  return table ? `${operation} ${table}` : operation;
}

/** What a statement answers: its rows (none for a write without `returning`) and how many rows it changed. */
export interface StatementResult {
  readonly rows: Row[];
  readonly changes: number;
  /** SQLite: the rowid of the row an insert without `returning` made. */
  readonly lastInsertId?: number;
}

/**
 * Where a session's statements go: the driver handle MikroORM was configured
 * with (the `pg.Pool`, or the SQLite database), either one pooled statement at
 * a time or on the connection one transaction holds.
 */
export interface StatementRunner {
  /** SQLite's driver answers at once (or throws), with no promise to wait for; pg answers a promise. */
  execute(
    statement: string | PreparedStatement,
    params: readonly unknown[],
  ): StatementResult | Promise<StatementResult>;
}

/**
 * Runs statements on the driver handle the database owns and hands to
 * MikroORM (ADR 0018): on one transaction handed over explicitly, or outside
 * any, each statement then taking a pooled connection (SQLite: the one
 * connection, when no transaction holds it) for itself. Parameters travel as
 * bindings, never formatted into the text; a `prepared` statement is named on
 * PostgreSQL and cached on SQLite (ADR 0014). Driver errors keep their codes,
 * which is all the classification needs. A session whose transaction has
 * ended refuses to run anything: work scheduled inside a transaction cannot
 * leak onto a connection back in the pool.
 */
export class SqlSession {
  private endedAs: string | undefined;

  constructor(
    private readonly runner: StatementRunner,
    /** What the custom column types convert values for. */
    readonly platform: Platform,
    readonly dialect: Dialect,
    private readonly outcomes: StatementOutcomes,
  ) {}

  /** The rows a typed query answers, for its parameters. */
  rows<P extends readonly unknown[], R extends Row>(statement: Query<P, R>, params: P): Promise<R[]> {
    return this.all<R>(statement, params);
  }

  /** The rows a query answers (reads, and writes with `returning`). Parameters are `?`. */
  async all<R extends Row = Row>(statement: string | PreparedStatement, params: readonly unknown[] = []): Promise<R[]> {
    const result = this.execute(statement, params);
    return (result instanceof Promise ? await result : result).rows as R[];
  }

  /**
   * SQLite: inserts one row and answers its id (its rowid), without a `returning` clause: the id comes with the
   * insert's own result, where `returning` would build and answer a row.
   */
  async insert(statement: string | PreparedStatement, params: readonly unknown[] = []): Promise<number> {
    const result = this.execute(statement, params);
    const { lastInsertId } = result instanceof Promise ? await result : result;
    if (lastInsertId === undefined) throw new Error('Only SQLite answers the id of an insert without returning.');
    return lastInsertId;
  }

  /** How many rows a write changed. */
  async run(statement: string | PreparedStatement, params: readonly unknown[] = []): Promise<number> {
    const result = this.execute(statement, params);
    return (result instanceof Promise ? await result : result).changes;
  }

  /** Called when the transaction commits or rolls back. */
  end(how: 'committed' | 'rolled back'): void {
    this.endedAs = how;
  }

  /**
   * With tracing on, a statement run inside a trace is a span of its own; off, this is one comparison. A SQLite
   * statement answers at once: the callers above take its result without waiting a turn of the event loop per layer.
   */
  private execute(
    statement: string | PreparedStatement,
    params: readonly unknown[],
  ): StatementResult | Promise<StatementResult> {
    if (!tracingIsOn()) return this.executeNow(statement, params);
    const sql = typeof statement === 'string' ? statement : statement.sql;
    return inChildSpan(
      statementSpanName(sql),
      { kind: SpanKind.CLIENT, attributes: { 'db.system.name': this.dialect, 'db.query.text': sql } },
      async () => this.executeNow(statement, params),
    );
  }

  /** Throws (synchronously, or as the promise it answers) what the outcomes make of a failure. */
  private executeNow(
    statement: string | PreparedStatement,
    params: readonly unknown[],
  ): StatementResult | Promise<StatementResult> {
    if (this.endedAs) throw new Error(`This transaction has ${this.endedAs}: it cannot run statements any more.`);
    let result: StatementResult | Promise<StatementResult>;
    try {
      result = this.runner.execute(statement, params);
    } catch (error) {
      throw this.outcomes.failed(error);
    }
    if (result instanceof Promise)
      return result.then(
        (answered) => {
          this.outcomes.succeeded();
          return answered;
        },
        (error: unknown) => {
          throw this.outcomes.failed(error);
        },
      );
    this.outcomes.succeeded();
    return result;
  }
}
