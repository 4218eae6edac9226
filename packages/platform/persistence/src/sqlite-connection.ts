import BetterSqlite3 from 'better-sqlite3';
import type { PreparedStatement, Row, StatementResult, StatementRunner } from './sql-session';

/**
 * Beyond this many distinct texts the oldest compiled statement is dropped: texts built per call (`in (?, ?)`) cannot
 * grow it without bound.
 */
const MAX_CACHED_STATEMENTS = 500;

export interface SqliteSettings {
  /** How long a writer waits for another process's lock, and a statement for this process's transaction. */
  readonly busyTimeoutMs: number;
  /** How long a transaction or a statement waits for the connection while another transaction holds it. */
  readonly acquireTimeoutMs: number;
}

/**
 * better-sqlite3 binds numbers, strings, bigints, buffers and null; booleans and times are stored as knex stored them
 * (1/0, epoch ms).
 */
function bindable(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.getTime();
  return value;
}

/**
 * The service's one SQLite connection (better-sqlite3, ADR 0018), shared by
 * MikroORM (through a Kysely dialect over this handle) and the sessions. One
 * compiled statement is kept per SQL text. A transaction holds the connection
 * from BEGIN to COMMIT; statements outside it, and other transactions, wait
 * their turn (in order, for at most the acquire timeout), as they waited for
 * MikroORM 6's pool of one before.
 */
export class SqliteConnection {
  readonly handle: BetterSqlite3.Database;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private held = false;
  private readonly waiting: (() => void)[] = [];

  constructor(
    file: string,
    private readonly settings: SqliteSettings,
  ) {
    this.handle = new BetterSqlite3(file, { timeout: settings.busyTimeoutMs });
    // Writers from another process wait for the lock (at most the busy timeout) instead of failing at once; WAL lets
    // readers go on meanwhile.
    this.handle.pragma(`busy_timeout = ${settings.busyTimeoutMs}`);
    this.handle.pragma('journal_mode = wal');
    // What better-sqlite3 builds in for WAL (and what the service has run with), said here so that no driver change
    // alters durability.
    this.handle.pragma('synchronous = normal');
  }

  /** Statements outside any transaction: each runs once no transaction holds the connection. */
  readonly outside: StatementRunner = {
    execute: (statement, params) => (this.held ? this.runInTurn(statement, params) : this.run(statement, params)),
  };

  /** A statement outside any transaction while one holds the connection: it waits for its turn. */
  private async runInTurn(statement: string | PreparedStatement, params: readonly unknown[]): Promise<StatementResult> {
    await this.acquire();
    try {
      return this.run(statement, params);
    } finally {
      this.release();
    }
  }

  /** Runs `work` with the connection held, between BEGIN and COMMIT (or ROLLBACK when it throws). */
  async transaction<T>(
    work: (runner: StatementRunner) => Promise<T>,
    ended: (how: 'committed' | 'rolled back') => void,
  ): Promise<T> {
    await this.acquire();
    try {
      this.run('begin', []);
      const runner: StatementRunner = { execute: (statement, params) => this.run(statement, params) };
      let result: T;
      try {
        result = await work(runner);
      } catch (error) {
        ended('rolled back');
        this.rollback();
        throw error;
      }
      ended('committed');
      try {
        this.run('commit', []);
      } catch (error) {
        this.rollback();
        throw error;
      }
      return result;
    } finally {
      this.release();
    }
  }

  /** Rolls back what is still open; a failing rollback must not hide why the transaction failed. */
  private rollback(): void {
    try {
      if (this.handle.inTransaction) this.run('rollback', []);
    } catch {
      // SQLite rolls back by itself what it cannot keep (a full disk, an I/O error).
    }
  }

  /** The one connection's state, in the shape of a pool's. */
  stats(): { used: number; free: number; pending: number; max: number } {
    return { used: this.held ? 1 : 0, free: this.held ? 0 : 1, pending: this.waiting.length, max: 1 };
  }

  close(): void {
    this.statements.clear();
    if (this.handle.open) this.handle.close();
  }

  private run(statement: string | PreparedStatement, params: readonly unknown[]): StatementResult {
    const compiled = this.compiled(typeof statement === 'string' ? statement : statement.sql);
    const values = params.map(bindable);
    if (compiled.reader) {
      const rows = compiled.all(...values) as Row[];
      return { rows, changes: rows.length };
    }
    const { changes, lastInsertRowid } = compiled.run(...values);
    return { rows: [], changes, lastInsertId: Number(lastInsertRowid) };
  }

  private compiled(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.handle.prepare(sql);
      if (this.statements.size >= MAX_CACHED_STATEMENTS) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(turn), 1);
        reject(
          new Error(
            `Timeout acquiring a connection: a transaction held the SQLite database for more than ${this.settings.acquireTimeoutMs} ms.`,
          ),
        );
      }, this.settings.acquireTimeoutMs);
      this.waiting.push(turn);
    });
  }

  /** Hands the connection to the next in line, which then holds it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}
