import type { OutboxEnvelope } from '@platform/kernel';
import type { OutboxTable } from '@platform/persistence/memory';
import { eventKeysOf, inSequenceOrder, productOrderingKey, subscribesTo } from '@stock/domain';
import type {
  AttemptRecord,
  AttemptResult,
  ClaimedDelivery,
  DeliveryOutcome,
  ReplayFrom,
  StoredEvent,
  SubscriptionRecord,
  WebhookStore,
} from '@stock/domain';

interface DeliveryRow {
  readonly id: number;
  readonly subscriptionId: string;
  readonly eventId: string;
  readonly orderingKey: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: number;
  lockedUntil: number;
  readonly createdAt: number;
}

const bySequenceThenTime = (a: StoredEvent, b: StoredEvent) =>
  (a.sequence ?? 0) - (b.sequence ?? 0) || a.occurredAt - b.occurredAt || (a.id < b.id ? -1 : 1);
const byTime = (a: StoredEvent, b: StoredEvent) => a.occurredAt - b.occurredAt || (a.id < b.id ? -1 : 1);

/**
 * The webhook store of the `memory:` connection string, beside the in-memory outbox it fans out from. Every method
 * runs to its end without awaiting, so each is atomic in this process; a second process has its own memory anyway.
 */
export class InMemoryWebhookStore implements WebhookStore {
  private readonly subscriptionsById = new Map<string, SubscriptionRecord>();
  private readonly events = new Map<string, StoredEvent>();
  /** In creation order: the order under each key. */
  private readonly deliveries = new Map<number, DeliveryRow>();
  private readonly attemptLog: AttemptRecord[] = [];
  private readonly fannedOut = new Set<string>();
  private nextDeliveryId = 1;

  constructor(private readonly outbox: OutboxTable) {}

  async addSubscription(subscription: SubscriptionRecord): Promise<void> {
    this.subscriptionsById.set(subscription.id, subscription);
  }

  async subscriptions(): Promise<SubscriptionRecord[]> {
    return [...this.subscriptionsById.values()];
  }

  async subscription(id: string): Promise<SubscriptionRecord | undefined> {
    return this.subscriptionsById.get(id);
  }

  async removeSubscription(id: string): Promise<boolean> {
    for (const [key, delivery] of this.deliveries) if (delivery.subscriptionId === id) this.deliveries.delete(key);
    for (let i = this.attemptLog.length - 1; i >= 0; i--)
      if (this.attemptLog[i]!.subscriptionId === id) this.attemptLog.splice(i, 1);
    return this.subscriptionsById.delete(id);
  }

  async rotateSecret(id: string, secret: string, previousSecret: string, previousSecretUntil: number) {
    const subscription = this.subscriptionsById.get(id);
    if (!subscription) return false;
    this.subscriptionsById.set(id, { ...subscription, secret, previousSecret, previousSecretUntil });
    return true;
  }

  async fanOut(batch: number, now: number): Promise<number> {
    const taken = inSequenceOrder(
      [...this.outbox.values()]
        .filter((row) => !this.fannedOut.has(row.id))
        .sort((a, b) => a.occurredAt - b.occurredAt || (a.id < b.id ? -1 : 1))
        .slice(0, batch),
      (row) => eventKeysOf(JSON.parse(row.payload) as OutboxEnvelope),
    );
    const enabled = [...this.subscriptionsById.values()].filter((s) => s.disabledAt === null);
    for (const row of taken) {
      this.fannedOut.add(row.id);
      const takers = enabled.filter((s) => subscribesTo(s.events, row.type));
      if (takers.length === 0) continue;
      const envelope = JSON.parse(row.payload) as OutboxEnvelope;
      const event = {
        id: row.id,
        type: row.type,
        payload: row.payload,
        occurredAt: row.occurredAt,
        ...eventKeysOf(envelope),
        traceContext: row.traceContext,
      };
      this.events.set(event.id, event);
      for (const subscription of takers) this.queue(subscription.id, event, now);
    }
    return taken.length;
  }

  async claim(batch: number, leaseMs: number, now: number, run = 1): Promise<ClaimedDelivery[]> {
    // Each key's unsettled deliveries, in their order.
    const queues = new Map<string, DeliveryRow[]>();
    for (const delivery of this.deliveries.values()) {
      if (delivery.state !== 'pending') continue;
      const key = `${delivery.subscriptionId}\n${delivery.orderingKey}`;
      const queue = queues.get(key);
      if (queue) queue.push(delivery);
      else queues.set(key, [delivery]);
    }
    const claimed: ClaimedDelivery[] = [];
    let heads = 0;
    for (const [head, ...behind] of queues.values()) {
      if (heads === batch) break;
      const subscription = this.subscriptionsById.get(head!.subscriptionId);
      if (!subscription || subscription.disabledAt !== null) continue;
      if (head!.nextAttemptAt > now || head!.lockedUntil > now) continue;
      heads++;
      for (const delivery of [head!, ...behind.slice(0, run - 1)]) {
        delivery.lockedUntil = now + leaseMs;
        claimed.push({
          id: String(delivery.id),
          subscription,
          event: this.events.get(delivery.eventId)!,
          attempts: delivery.attempts,
          createdAt: delivery.createdAt,
        });
      }
    }
    return claimed;
  }

  async release(deliveryIds: readonly string[]): Promise<void> {
    for (const id of deliveryIds) {
      const delivery = this.deliveries.get(Number(id));
      if (delivery?.state === 'pending') delivery.lockedUntil = 0;
    }
  }

  async recordAttempts(results: readonly AttemptResult[], released: readonly string[] = []): Promise<void> {
    for (const { attempt, outcome } of results) this.recordAttempt(attempt, outcome);
    await this.release(released);
  }

  private recordAttempt(attempt: AttemptRecord, outcome: DeliveryOutcome): void {
    const delivery = this.deliveries.get(Number(attempt.deliveryId));
    if (!delivery || delivery.state !== 'pending') return;
    this.attemptLog.push(attempt);
    delivery.attempts += outcome.kind === 'delivered' ? 0 : 1;
    delivery.lockedUntil = 0;
    if (outcome.kind === 'delivered') delivery.state = 'delivered';
    else if (outcome.kind === 'retry') delivery.nextAttemptAt = outcome.nextAttemptAt;
    else {
      delivery.state = 'failed';
      const subscription = this.subscriptionsById.get(delivery.subscriptionId);
      if (outcome.disableSubscription && subscription)
        this.subscriptionsById.set(subscription.id, { ...subscription, disabledAt: attempt.attemptedAt });
    }
  }

  async attempts(subscriptionId: string, limit: number): Promise<AttemptRecord[]> {
    return this.attemptLog
      .filter((a) => a.subscriptionId === subscriptionId)
      .reverse()
      .slice(0, limit);
  }

  async replay(
    subscriptionId: string,
    from: ReplayFrom,
    now: number,
    rebuilt: readonly OutboxEnvelope[] = [],
  ): Promise<number> {
    const subscription = this.subscriptionsById.get(subscriptionId);
    if (!subscription) return 0;
    for (const envelope of rebuilt)
      if (!this.events.has(envelope.id))
        this.events.set(envelope.id, {
          id: envelope.id,
          type: envelope.type,
          payload: JSON.stringify(envelope),
          occurredAt: Date.parse(envelope.occurredAt),
          ...eventKeysOf(envelope),
        });
    const events = [...this.events.values()].filter((e) => subscribesTo(subscription.events, e.type));
    const chosen =
      'since' in from
        ? events.filter((e) => e.occurredAt >= from.since).sort(byTime)
        : events
            .filter(
              (e) => e.orderingKey === productOrderingKey(from.productId) && (e.sequence ?? -1) >= from.sinceSequence,
            )
            .sort(bySequenceThenTime);
    for (const event of chosen) this.queue(subscriptionId, event, now);
    return chosen.length;
  }

  async sweep(before: number, batch: number): Promise<number> {
    const forgotten = new Set<string>();
    for (const [id, delivery] of this.deliveries) {
      if (forgotten.size === batch) break;
      if (delivery.state === 'pending' || delivery.createdAt >= before) continue;
      this.deliveries.delete(id);
      forgotten.add(String(id));
    }
    for (let i = this.attemptLog.length - 1; i >= 0; i--)
      if (forgotten.has(this.attemptLog[i]!.deliveryId)) this.attemptLog.splice(i, 1);
    const named = new Set([...this.deliveries.values()].map((delivery) => delivery.eventId));
    for (const [id, event] of this.events) if (event.occurredAt < before && !named.has(id)) this.events.delete(id);
    // The outbox's own sweep drops published rows; their fan-out marks go with them.
    for (const id of this.fannedOut) if (this.outbox.get(id) === undefined) this.fannedOut.delete(id);
    return forgotten.size;
  }

  private queue(subscriptionId: string, event: StoredEvent, now: number): void {
    const id = this.nextDeliveryId++;
    this.deliveries.set(id, {
      id,
      subscriptionId,
      eventId: event.id,
      orderingKey: event.orderingKey,
      state: 'pending',
      attempts: 0,
      nextAttemptAt: 0,
      lockedUntil: 0,
      createdAt: now,
    });
  }
}
