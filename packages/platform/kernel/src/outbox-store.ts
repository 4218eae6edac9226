/** A row a relay claimed: the envelope as stored, and how often publishing it failed so far. */
export interface ClaimedOutboxMessage {
  readonly id: string;
  readonly type: string;
  /** The whole envelope as JSON text, published as it is. */
  readonly payload: string;
  /** Epoch milliseconds. */
  readonly occurredAt: number;
  readonly attempts: number;
  /**
   * The trace context of the span that wrote the event (`{"traceparent": …}` as JSON text), so that its publish
   * continues that trace; null when nothing traced the write.
   */
  readonly traceContext: string | null;
}

/**
 * The relay's side of an outbox. Times are epoch milliseconds, handed in so
 * tests need no clock. A claim is a lease, not a transaction: the rows stay
 * the relay's until `now + leaseMs`, then any relay may claim them again, so
 * a relay that dies mid-batch delays its rows but loses none.
 */
export interface OutboxStore {
  /**
   * Leases up to `batch` unpublished rows that are due (`next_attempt_at <= now`)
   * and not leased by anyone (`locked_until <= now`), oldest first. Relays
   * claiming at the same time never get the same row.
   */
  claim(batch: number, leaseMs: number, now: number): Promise<ClaimedOutboxMessage[]>;
  /** The broker confirmed these rows: they are never claimed again. */
  markPublished(ids: readonly string[], now: number): Promise<void>;
  /** Publishing failed: the row is released and due again at `nextAttemptAt`. */
  retryLater(id: string, attempts: number, nextAttemptAt: number): Promise<void>;
  /** How many rows are not published yet: the backlog. */
  countUnpublished(): Promise<number>;
  /**
   * Deletes up to `batch` rows published before `before` and answers how many; sweepers on several instances skip each
   * other's rows.
   */
  deletePublished(before: number, batch: number): Promise<number>;
}

/**
 * Deletes every event published more than `retentionMs` ago, a batch at a
 * time, and answers how many went. Safe on any number of instances: each
 * batch skips rows another sweeper is deleting.
 */
export async function sweepPublishedEvents(
  store: OutboxStore,
  retentionMs: number,
  now: number = Date.now(),
  batch = 1000,
): Promise<number> {
  let deleted = 0;
  for (let last = batch; last === batch; deleted += last) last = await store.deletePublished(now - retentionMs, batch);
  return deleted;
}
