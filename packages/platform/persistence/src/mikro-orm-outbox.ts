import type { ClaimedOutboxMessage, Outbox, OutboxEnvelope, OutboxStore } from '@platform/kernel';
import { inSpan, storedTraceContext, tracingIsOn } from '@platform/runtime';
import type { SqlSession } from './sql-session';

type ClaimedRow = {
  id: string;
  type: string;
  payload: string;
  occurred_at: number | string;
  attempts: number;
  trace_context: string | null;
};

/** Placeholders for a list of parameters. */
const list = (count: number) => Array.from({ length: count }, () => '?').join(', ');

/**
 * The outbox in the service's database. Bound to a transaction's session,
 * `add` writes an event in the use case's unit of work; bound to the session
 * outside any transaction, the rest serves the relay and the sweeper, each
 * statement on its own.
 */
export class MikroOrmOutbox implements Outbox, OutboxStore {
  constructor(private readonly session: SqlSession) {}

  /**
   * Due at once (`next_attempt_at` 0), whatever the clocks of the relays say. With tracing on, the write is a span, and
   * its context is stored with the row: the relay's publish continues it.
   */
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
    await this.session.run(
      'insert into "outbox_message" ("id", "type", "payload", "occurred_at", "published_at", "attempts", "next_attempt_at", "locked_until", "trace_context") values (?, ?, ?, ?, null, 0, 0, 0, ?)',
      [envelope.id, envelope.type, JSON.stringify(envelope), occurredAt, traceContext],
    );
  }

  async claim(batch: number, leaseMs: number, now: number): Promise<ClaimedOutboxMessage[]> {
    // One statement: the rows are leased as they are chosen. PostgreSQL skips rows another relay is leasing right
    // now instead of waiting for them; SQLite runs one writer at a time, so there is nothing to skip.
    const lock = this.session.dialect === 'postgresql' ? ' for update skip locked' : '';
    const rows = await this.session.all<ClaimedRow>(
      `update "outbox_message" set "locked_until" = ?
       where "id" in (select "id" from "outbox_message"
         where "published_at" is null and "next_attempt_at" <= ? and "locked_until" <= ?
         order by "occurred_at", "id" limit ?${lock})
       returning "id", "type", "payload", "occurred_at", "attempts", "trace_context"`,
      [now + leaseMs, now, now, batch],
    );
    // `returning` keeps no order.
    return rows
      .map((row) => ({
        id: String(row.id),
        type: row.type,
        payload: row.payload,
        occurredAt: Number(row.occurred_at),
        attempts: Number(row.attempts),
        traceContext: row.trace_context ?? null,
      }))
      .sort((a, b) => a.occurredAt - b.occurredAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async markPublished(ids: readonly string[], now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.session.run(
      `update "outbox_message" set "published_at" = ?, "locked_until" = 0 where "id" in (${list(ids.length)})`,
      [now, ...ids],
    );
  }

  async retryLater(id: string, attempts: number, nextAttemptAt: number): Promise<void> {
    await this.session.run(
      'update "outbox_message" set "attempts" = ?, "next_attempt_at" = ?, "locked_until" = 0 where "id" = ? and "published_at" is null',
      [attempts, nextAttemptAt, id],
    );
  }

  async countUnpublished(): Promise<number> {
    const [row] = await this.session.all<{ n: number | string }>(
      'select count(*) as "n" from "outbox_message" where "published_at" is null',
    );
    return Number(row?.n ?? 0);
  }

  async deletePublished(before: number, batch: number): Promise<number> {
    const lock = this.session.dialect === 'postgresql' ? ' for update skip locked' : '';
    return this.session.run(
      `delete from "outbox_message" where "id" in (select "id" from "outbox_message" where "published_at" is not null and "published_at" < ? limit ?${lock})`,
      [before, batch],
    );
  }
}
