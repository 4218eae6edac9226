import type { IdempotencyClaim, IdempotencyRecords, IdempotentRequest } from '@platform/kernel';
import type { SqlSession } from './sql-session';

type RecordRow = {
  fingerprint: string;
  result: string | null;
};

/**
 * Idempotency records in the service's database, in the caller's transaction.
 * A claim is an insert: on PostgreSQL a second transaction claiming the same
 * key blocks on the first one's row until it commits, then reads its record;
 * on SQLite transactions take turns.
 */
export class MikroOrmIdempotencyRecords implements IdempotencyRecords {
  constructor(
    private readonly session: SqlSession,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async claim({ scope, key, fingerprint }: IdempotentRequest): Promise<IdempotencyClaim> {
    const now = this.now();
    // Inserts the claim, or takes over a record whose time has passed; no row back means a live record exists.
    const claimed = await this.session.all(
      `insert into "idempotency_key" ("scope", "key", "fingerprint", "expires_at") values (?, ?, ?, ?)
       on conflict ("scope", "key") do update
         set "fingerprint" = excluded."fingerprint", "expires_at" = excluded."expires_at", "result" = null
         where "idempotency_key"."expires_at" <= ?
       returning "scope"`,
      [scope, key, fingerprint, now + this.ttlMs, now],
    );
    if (claimed.length > 0) return { status: 'claimed' };
    const [row] = await this.session.all<RecordRow>(
      'select "fingerprint", "result" from "idempotency_key" where "scope" = ? and "key" = ?',
      [scope, key],
    );
    if (!row || row.result === null) return { status: 'pending' };
    return { status: 'recorded', fingerprint: row.fingerprint, result: row.result };
  }

  async find({ scope, key }: IdempotentRequest): Promise<{ fingerprint: string; result: string } | undefined> {
    const [row] = await this.session.all<RecordRow>(
      'select "fingerprint", "result" from "idempotency_key" where "scope" = ? and "key" = ? and "expires_at" > ? and "result" is not null',
      [scope, key, this.now()],
    );
    return row && { fingerprint: row.fingerprint, result: row.result! };
  }

  async complete({ scope, key }: IdempotentRequest, result: string): Promise<void> {
    await this.session.run('update "idempotency_key" set "result" = ? where "scope" = ? and "key" = ?', [
      result,
      scope,
      key,
    ]);
  }
}

/**
 * Deletes up to `batch` expired records and answers how many. Runs outside any
 * request's transaction; on PostgreSQL rows another sweeper (another instance)
 * is deleting are skipped, not waited for.
 */
export async function sweepExpiredIdempotencyKeys(session: SqlSession, now: number, batch = 1000): Promise<number> {
  const lock = session.dialect === 'postgresql' ? ' for update skip locked' : '';
  return session.run(
    `delete from "idempotency_key" where ("scope", "key") in (select "scope", "key" from "idempotency_key" where "expires_at" <= ? limit ?${lock})`,
    [now, batch],
  );
}
