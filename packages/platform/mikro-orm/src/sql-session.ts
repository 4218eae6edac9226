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
 * Runs statements on one EntityManager: a fork bound to a transaction, or a
 * fork outside any, whose statements each take a pooled connection. Goes
 * through `em.execute`, so MikroORM logs the statements and converts driver
 * errors. A session whose transaction has ended refuses to run anything: work
 * scheduled inside a transaction cannot leak onto a connection back in the pool.
 */
export class SqlSession {
  private endedAs: string | undefined;

  constructor(
    readonly em: SqlEntityManager,
    readonly dialect: Dialect,
    private readonly outcomes: StatementOutcomes,
  ) {}

  /** The rows a query answers (reads, and writes with `returning`). Parameters are `?`. */
  async all<R extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.execute<R[]>(sql, params, 'all');
  }

  /** How many rows a write changed. */
  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return (await this.execute<{ affectedRows: number }>(sql, params, 'run')).affectedRows;
  }

  /** Called when the transaction commits or rolls back. */
  end(how: 'committed' | 'rolled back'): void {
    this.endedAs = how;
  }

  private async execute<T>(sql: string, params: readonly unknown[], method: 'all' | 'run'): Promise<T> {
    if (this.endedAs) throw new Error(`This transaction has ${this.endedAs}: it cannot run statements any more.`);
    try {
      const result = (await this.em.execute(sql, [...params], method)) as T;
      this.outcomes.succeeded();
      return result;
    } catch (error) {
      throw this.outcomes.failed(error);
    }
  }
}
