import type { IdempotencyClaim, IdempotencyRecords, IdempotentRequest } from '@platform/kernel';
import type { InMemoryTable, InMemoryTransaction } from './in-memory-database';

export interface IdempotencyRecordRow {
  readonly fingerprint: string;
  readonly result: string | undefined;
  readonly expiresAt: number;
}

export type IdempotencyTable = InMemoryTable<string, IdempotencyRecordRow>;

/** One claim in this many also drops expired records, so the table stays bounded without a scheduler. */
const SWEEP_EVERY = 100;

/** Idempotency records in an in-memory table, written in the caller's transaction. */
export class InMemoryIdempotencyRecords implements IdempotencyRecords {
  private static claims = 0;

  constructor(
    private readonly table: IdempotencyTable,
    private readonly tx: InMemoryTransaction,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  async claim(request: IdempotentRequest): Promise<IdempotencyClaim> {
    const now = this.now();
    if (++InMemoryIdempotencyRecords.claims % SWEEP_EVERY === 0) this.sweep(now);
    const id = `${request.scope}\n${request.key}`;
    const existing = this.table.get(id, this.tx);
    if (existing && existing.expiresAt > now) {
      // Transactions run one at a time here, so a live record is always a finished one.
      return { status: 'recorded', fingerprint: existing.fingerprint, result: existing.result ?? '' };
    }
    this.table.set(id, { fingerprint: request.fingerprint, result: undefined, expiresAt: now + this.ttlMs }, this.tx);
    return { status: 'claimed' };
  }

  async find(request: IdempotentRequest): Promise<{ fingerprint: string; result: string } | undefined> {
    const row = this.table.get(`${request.scope}\n${request.key}`, this.tx);
    if (!row || row.expiresAt <= this.now() || row.result === undefined) return undefined;
    return { fingerprint: row.fingerprint, result: row.result };
  }

  async complete(request: IdempotentRequest, result: string): Promise<void> {
    const id = `${request.scope}\n${request.key}`;
    const claimed = this.table.get(id, this.tx);
    if (!claimed) throw new Error(`The idempotency key "${request.key}" was never claimed in this transaction.`);
    this.table.set(id, { ...claimed, result }, this.tx);
  }

  private sweep(now: number): void {
    for (const [id, row] of [...this.table.entries(this.tx)]) if (row.expiresAt <= now) this.table.delete(id, this.tx);
  }
}
