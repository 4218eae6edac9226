/** What an outbox keeps: an event as it will travel, `{ id, type, occurredAt, data }`. */
export interface OutboxEnvelope {
  readonly id: string;
  readonly type: string;
  /** RFC 3339. */
  readonly occurredAt: string;
  readonly data: unknown;
}

/**
 * The events of one unit of work. A use case adds them through its
 * transaction, beside the change that caused them: both commit or neither does.
 */
export interface Outbox {
  add(envelope: OutboxEnvelope): Promise<void>;
}
