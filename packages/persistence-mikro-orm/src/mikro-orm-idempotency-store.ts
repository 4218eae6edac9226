import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import { type IdempotencyStore, IdempotencyKeyReusedError, type IdempotentRequest, type IdempotentResult, type RecordedResponse } from '@stock/domain';

interface RecordRow {
  fingerprint: string;
  status: number | null;
  headers: string | null;
  body: string | null;
}

/** One claim in this many also sweeps expired records, so the table stays bounded without a scheduler. */
const SWEEP_EVERY = 100;
const WAIT_ATTEMPTS = 50;

/**
 * Idempotency records in the products' database. The claim, the effect's
 * writes and the recorded response commit in one transaction: either all of
 * them happen or none does. A repeat that arrives while the first is running
 * blocks on the claim's row (PostgreSQL) or on the single writer (SQLite), then
 * reads the committed record.
 */
export class MikroOrmIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly orm: MikroORM,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async once(request: IdempotentRequest, effect: () => Promise<RecordedResponse>): Promise<IdempotentResult> {
    for (let attempt = 0; attempt < WAIT_ATTEMPTS; attempt++) {
      if (Math.floor(Math.random() * SWEEP_EVERY) === 0) {
        // On its own, not in the request's transaction: the sweep must not hold locks while the effect runs.
        await (this.orm.em.fork() as SqlEntityManager).execute('delete from "idempotency_key" where "expires_at" <= ?', [this.now()], 'run');
      }
      const result = await this.orm.em.fork().transactional(async (em) => {
        const now = this.now();
        if (await this.claim(em as SqlEntityManager, request, now)) {
          const response = await effect();
          await (em as SqlEntityManager).execute(
            'update "idempotency_key" set "status" = ?, "headers" = ?, "body" = ? where "scope" = ? and "key" = ?',
            [response.status, JSON.stringify(response.headers), response.body, request.scope, request.key],
            'run',
          );
          return { response, replayed: false };
        }
        return this.recorded(em as SqlEntityManager, request);
      });
      if (result) return result;
      // Claimed by a transaction that has not committed (only possible where claims do not block): look again shortly.
      await new Promise((resolve) => setTimeout(resolve, 10 * (attempt + 1)));
    }
    throw new Error(`Idempotency key "${request.key}" stayed claimed without a recorded response.`);
  }

  /** Inserts the record, or takes over an expired one; false when a live record exists. */
  private async claim(em: SqlEntityManager, { scope, key, fingerprint }: IdempotentRequest, now: number): Promise<boolean> {
    const rows = await em.execute(
      `insert into "idempotency_key" ("scope", "key", "fingerprint", "expires_at") values (?, ?, ?, ?)
       on conflict ("scope", "key") do update
         set "fingerprint" = excluded."fingerprint", "expires_at" = excluded."expires_at", "status" = null, "headers" = null, "body" = null
         where "idempotency_key"."expires_at" <= ?
       returning "scope"`,
      [scope, key, fingerprint, now + this.ttlMs, now],
    );
    return rows.length > 0;
  }

  private async recorded(em: SqlEntityManager, request: IdempotentRequest): Promise<IdempotentResult | undefined> {
    const [row] = await em.execute<RecordRow[]>('select "fingerprint", "status", "headers", "body" from "idempotency_key" where "scope" = ? and "key" = ?', [
      request.scope,
      request.key,
    ]);
    if (!row) return undefined;
    if (row.fingerprint !== request.fingerprint) throw new IdempotencyKeyReusedError(request.key);
    if (row.status === null) return undefined;
    return { response: { status: Number(row.status), headers: JSON.parse(row.headers ?? '{}') as Record<string, string>, body: row.body ?? '' }, replayed: true };
  }
}
