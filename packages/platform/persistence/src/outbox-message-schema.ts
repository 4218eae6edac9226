import { EntitySchema } from '@mikro-orm/core';
import type { Dialect } from './database-url';

/** An event waiting in, or published from, a service's outbox. Times are epoch milliseconds. */
export interface OutboxMessageRow {
  id: string;
  type: string;
  /** The whole envelope as JSON text. */
  payload: string;
  occurredAt: number;
  publishedAt: number | null;
  /** Failed publishes so far. */
  attempts: number;
  nextAttemptAt: number;
  /** The end of the lease of the relay that claimed it; 0 when none holds it. */
  lockedUntil: number;
  /** The trace context of the span that wrote the row, as JSON text; null when nothing traced it. */
  traceContext: string | null;
}

/**
 * The mapping of the table `outboxMessageMigration` creates; each service's schema-drift test holds the two together.
 */
export function outboxMessageSchema(dialect: Dialect): EntitySchema<OutboxMessageRow> {
  // Epoch milliseconds: bigint on PostgreSQL; SQLite's integer holds 64 bits.
  const epoch = dialect === 'postgresql' ? 'bigint' : 'integer';
  return new EntitySchema<OutboxMessageRow>({
    name: 'OutboxMessage',
    tableName: 'outbox_message',
    // The relay's query (unpublished, oldest first) and the sweeper's (published before a time) both start with
    // published_at.
    indexes: [{ name: 'outbox_message_relay_index', properties: ['publishedAt', 'occurredAt', 'id'] }],
    properties: {
      id: dialect === 'postgresql' ? { type: 'uuid', primary: true } : { type: 'text', primary: true },
      type: dialect === 'postgresql' ? { type: 'string', length: 255 } : { type: 'text' },
      payload: { type: 'text' },
      occurredAt: { type: epoch, fieldName: 'occurred_at' },
      publishedAt: { type: epoch, fieldName: 'published_at', nullable: true },
      attempts: { type: 'integer' },
      nextAttemptAt: { type: epoch, fieldName: 'next_attempt_at' },
      lockedUntil: { type: epoch, fieldName: 'locked_until' },
      traceContext: { type: 'text', fieldName: 'trace_context', nullable: true },
    },
  });
}
