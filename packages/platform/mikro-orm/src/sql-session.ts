import type { SqlEntityManager } from '@mikro-orm/knex';
import type { Dialect } from './database-url';

export type Row = Record<string, unknown>;

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
  ) {}

  /** The rows a query answers (reads, and writes with `returning`). Parameters are `?`. */
  async all<R extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    this.assertOpen();
    return this.em.execute<R[]>(sql, [...params], 'all');
  }

  /** How many rows a write changed. */
  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    this.assertOpen();
    const result = await this.em.execute<{ affectedRows: number }>(sql, [...params], 'run');
    return result.affectedRows;
  }

  /** Called when the transaction commits or rolls back. */
  end(how: 'committed' | 'rolled back'): void {
    this.endedAs = how;
  }

  private assertOpen(): void {
    if (this.endedAs) throw new Error(`This transaction has ${this.endedAs}: it cannot run statements any more.`);
  }
}
