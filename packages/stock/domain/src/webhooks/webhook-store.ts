import type { OutboxEnvelope } from '@platform/kernel';

/** A subscription as stored: its secrets sealed (SecretBox), times in epoch milliseconds. */
export interface SubscriptionRecord {
  readonly id: string;
  readonly url: string;
  /** Event types, or `*`. */
  readonly events: readonly string[];
  readonly description: string;
  readonly secret: string;
  /** The secret a rotation replaced, still signing until `previousSecretUntil`. */
  readonly previousSecret: string | null;
  readonly previousSecretUntil: number | null;
  readonly createdAt: number;
  /** Set when the receiver answered 410 Gone: nothing is delivered to it any more. */
  readonly disabledAt: number | null;
}

/** An event as the fan-out stored it: the outbox envelope, what it is ordered by, and when it happened. */
export interface StoredEvent {
  readonly id: string;
  readonly type: string;
  /** The outbox envelope `{ id, type, occurredAt, data }` as JSON text. */
  readonly payload: string;
  readonly occurredAt: number;
  readonly orderingKey: string;
  readonly sequence: number | null;
  /** The trace context the outbox row stored with the event (`traceparent`…, as JSON), or null: none was active. */
  readonly traceContext?: string | null;
}

/** A delivery a worker leased: the event and where it goes, with the secrets that sign it. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly subscription: SubscriptionRecord;
  readonly event: StoredEvent;
  /** Failed attempts so far. */
  readonly attempts: number;
  /** When the delivery was made (by the fan-out or a replay): back-off stops three days on. */
  readonly createdAt: number;
}

/** One try at a delivery, as GET …/deliveries lists it. */
export interface AttemptRecord {
  readonly deliveryId: string;
  readonly subscriptionId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly attemptedAt: number;
  /** The receiver's status, or null when there was no answer (refused, timed out, not allowed). */
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
}

/** What became of a delivery after an attempt. */
export type DeliveryOutcome =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'retry'; readonly nextAttemptAt: number }
  /** Given up: back-off ran out, or the receiver is gone (410, which disables the subscription too). */
  | { readonly kind: 'failed'; readonly disableSubscription: boolean };

/** One attempt at a delivery, and what became of the delivery. */
export interface AttemptResult {
  readonly attempt: AttemptRecord;
  readonly outcome: DeliveryOutcome;
}

/** What a replay sends again: one product's events from a sequence on (inclusive), or every event since a time. */
export type ReplayFrom =
  { readonly productId: number | string; readonly sinceSequence: number } | { readonly since: number };

/**
 * Subscriptions, the events fanned out to them and their deliveries. Times are epoch milliseconds, handed in so
 * tests need no clock. A claim is a lease: the rows stay the worker's until `now + leaseMs`, and no other worker
 * gets them meanwhile; for one subscription and one ordering key only the oldest delivery not settled is ever
 * claimable, with the run behind it, so deliveries under a key never overtake each other.
 */
export interface WebhookStore {
  addSubscription(subscription: SubscriptionRecord): Promise<void>;
  /** Every subscription, oldest first. */
  subscriptions(): Promise<SubscriptionRecord[]>;
  subscription(id: string): Promise<SubscriptionRecord | undefined>;
  /** Removes a subscription with its deliveries and attempts; answers whether there was one. */
  removeSubscription(id: string): Promise<boolean>;
  /** Answers whether there was such a subscription. */
  rotateSecret(id: string, secret: string, previousSecret: string, previousSecretUntil: number): Promise<boolean>;
  /**
   * Takes up to `batch` outbox events not fanned out yet, in the order they were written, and in one transaction
   * stores each that an enabled subscription takes, with one delivery per such subscription, and marks them fanned
   * out. Answers how many outbox events it took. Fan-outs running at once never take the same event.
   */
  fanOut(batch: number, now: number): Promise<number>;
  /**
   * Leases up to `batch` due deliveries of enabled subscriptions, each the oldest unsettled one of its key, and behind
   * each up to `run - 1` more of its key, in their order: a worker sends a key's run one after another, on one
   * connection, for one claim. Answers them in their order (a key's run together, its oldest first).
   */
  claim(batch: number, leaseMs: number, now: number, run?: number): Promise<ClaimedDelivery[]>;
  /** Ends the lease of deliveries a worker claimed and did not attempt (the rest of a run stopped at a failure). */
  release(deliveryIds: readonly string[]): Promise<void>;
  /**
   * Records a run's attempts in their order, settling or rescheduling each delivery and ending its lease, and ends the
   * lease of `released` (the rest of the run, not attempted): one write per run, not one per delivery. An attempt at a
   * delivery removed meanwhile is not recorded.
   */
  recordAttempts(results: readonly AttemptResult[], released?: readonly string[]): Promise<void>;
  /** A subscription's latest attempts, newest first. */
  attempts(subscriptionId: string, limit: number): Promise<AttemptRecord[]>;
  /**
   * Queues again, behind what is pending, every stored event `from` names that the subscription takes, in their
   * order; answers how many. `rebuilt` are events a replay source rebuilt from the service's own records (the stock
   * ledger): each is stored first, unless an event of its id already is (the one stored keeps its payload), so the
   * replay sends what the records hold even where no subscription took it when it happened.
   */
  replay(subscriptionId: string, from: ReplayFrom, now: number, rebuilt?: readonly OutboxEnvelope[]): Promise<number>;
  /**
   * Forgets up to `batch` settled deliveries (delivered, or given up) made before `before`, with their attempts, and
   * then the stored events made before `before` that no delivery names any more. Pending deliveries and their events
   * stay whatever their age. Answers how many deliveries it forgot; instances sweeping at once never fail for it.
   */
  sweep(before: number, batch: number): Promise<number>;
}
