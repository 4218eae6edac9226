import type { ClaimedOutboxMessage, Outbox, OutboxEnvelope, OutboxStore } from '@platform/kernel';
import { inSpan, storedTraceContext, tracingIsOn } from '@platform/runtime';
import type { InMemoryDatabase, InMemoryTable, InMemoryTransaction } from './in-memory-database';

export interface OutboxMessageRecord {
  readonly id: string;
  readonly type: string;
  readonly payload: string;
  readonly occurredAt: number;
  readonly publishedAt: number | undefined;
  readonly attempts: number;
  readonly nextAttemptAt: number;
  readonly lockedUntil: number;
  /** The trace context of the span that wrote it, as JSON text; null when nothing traced the write. */
  readonly traceContext: string | null;
}

export type OutboxTable = InMemoryTable<string, OutboxMessageRecord>;

/** The events of one in-memory transaction: committed with its other writes, or dropped with them. */
export class InMemoryOutbox implements Outbox {
  constructor(
    private readonly table: OutboxTable,
    private readonly tx: InMemoryTransaction,
  ) {}

  /** With tracing on, the write is a span whose context is kept with the record, as the database's outbox does. */
  add(envelope: OutboxEnvelope): Promise<void> {
    if (!tracingIsOn()) return this.insert(envelope, null);
    return inSpan(`outbox write ${envelope.type}`, { attributes: { 'messaging.message.id': envelope.id } }, () =>
      this.insert(envelope, storedTraceContext()),
    );
  }

  private async insert(envelope: OutboxEnvelope, traceContext: string | null): Promise<void> {
    const occurredAt = Date.parse(envelope.occurredAt);
    if (Number.isNaN(occurredAt))
      throw new Error(`The event ${envelope.id} has no valid occurredAt: "${envelope.occurredAt}".`);
    if (this.table.get(envelope.id, this.tx)) throw new Error(`The outbox already holds an event ${envelope.id}.`);
    const record = {
      id: envelope.id,
      type: envelope.type,
      payload: JSON.stringify(envelope),
      occurredAt,
      publishedAt: undefined,
      attempts: 0,
      nextAttemptAt: 0,
      lockedUntil: 0,
      traceContext,
    };
    this.table.set(envelope.id, record, this.tx);
  }
}

const byAge = (a: OutboxMessageRecord, b: OutboxMessageRecord) =>
  a.occurredAt - b.occurredAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The relay's side of the in-memory outbox: each call is a transaction of its own, and they take turns. */
export class InMemoryOutboxStore implements OutboxStore {
  constructor(
    private readonly database: InMemoryDatabase,
    private readonly table: OutboxTable,
  ) {}

  claim(batch: number, leaseMs: number, now: number): Promise<ClaimedOutboxMessage[]> {
    return this.database.transaction(async (tx) => {
      const due = [...this.table.values(tx)].filter(
        (row) => row.publishedAt === undefined && row.nextAttemptAt <= now && row.lockedUntil <= now,
      );
      const claimed = due.sort(byAge).slice(0, batch);
      for (const row of claimed) this.table.set(row.id, { ...row, lockedUntil: now + leaseMs }, tx);
      return claimed.map(({ id, type, payload, occurredAt, attempts, traceContext }) => ({
        id,
        type,
        payload,
        occurredAt,
        attempts,
        traceContext,
      }));
    });
  }

  markPublished(ids: readonly string[], now: number): Promise<void> {
    return this.database.transaction(async (tx) => {
      for (const id of ids) {
        const row = this.table.get(id, tx);
        if (row) this.table.set(id, { ...row, publishedAt: now, lockedUntil: 0 }, tx);
      }
    });
  }

  retryLater(id: string, attempts: number, nextAttemptAt: number): Promise<void> {
    return this.database.transaction(async (tx) => {
      const row = this.table.get(id, tx);
      if (row && row.publishedAt === undefined)
        this.table.set(id, { ...row, attempts, nextAttemptAt, lockedUntil: 0 }, tx);
    });
  }

  async countUnpublished(): Promise<number> {
    let count = 0;
    for (const row of this.table.values()) if (row.publishedAt === undefined) count++;
    return count;
  }

  deletePublished(before: number, batch: number): Promise<number> {
    return this.database.transaction(async (tx) => {
      const old = [...this.table.values(tx)]
        .filter((row) => row.publishedAt !== undefined && row.publishedAt < before)
        .slice(0, batch);
      for (const row of old) this.table.delete(row.id, tx);
      return old.length;
    });
  }
}
