import type { OutboxEnvelope } from '@platform/kernel';
import type { Database, SqlSession } from '@platform/persistence';
import { eventKeysOf, inSequenceOrder, productOrderingKey, subscribesTo } from '@stock/domain';
import type {
  AttemptRecord,
  AttemptResult,
  ClaimedDelivery,
  ReplayFrom,
  StoredEvent,
  SubscriptionRecord,
  WebhookStore,
} from '@stock/domain';

type SubscriptionRow = {
  id: string;
  url: string;
  events: string;
  description: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | string | null;
  created_at: number | string;
  disabled_at: number | string | null;
};
type EventRow = {
  id: string;
  type: string;
  payload: string;
  occurred_at: number | string;
  ordering_key: string;
  sequence: number | string | null;
  trace_context?: string | null;
};
type ClaimedRow = {
  id: number | string;
  subscription_id: string;
  event_id: string;
  ordering_key: string;
  attempts: number;
  created_at: number | string;
};
type AttemptRow = {
  delivery_id: number | string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  attempted_at: number | string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
};

/** Any PostgreSQL advisory lock number that is the fan-out's alone: "whfo". */
const FAN_OUT_LOCK = 0x7768666f;

/** Rows per multi-row insert: well under either database's limit of bound parameters. */
const ROWS_PER_INSERT = 100;

const list = (count: number) => Array.from({ length: count }, () => '?').join(', ');
const orNull = (value: number | string | null) => (value === null ? null : Number(value));

function subscriptionOf(row: SubscriptionRow): SubscriptionRecord {
  return {
    id: String(row.id),
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretUntil: orNull(row.previous_secret_until),
    createdAt: Number(row.created_at),
    disabledAt: orNull(row.disabled_at),
  };
}

function eventOf(row: EventRow): StoredEvent {
  return {
    id: row.id,
    type: row.type,
    payload: row.payload,
    occurredAt: Number(row.occurred_at),
    orderingKey: row.ordering_key,
    sequence: orNull(row.sequence),
    traceContext: row.trace_context ?? null,
  };
}

const SUBSCRIPTION_COLUMNS =
  '"id", "url", "events", "description", "secret", "previous_secret", "previous_secret_until", "created_at", "disabled_at"';

/**
 * The webhook tables in the service's database, fanned out from its outbox table. The fan-out is one transaction:
 * the events it takes, their deliveries and the outbox's mark commit together. Claims lease rows in one statement,
 * skipping rows another worker is leasing right now on PostgreSQL, as the outbox relay does.
 */
export class MikroOrmWebhookStore implements WebhookStore {
  constructor(private readonly database: Database) {}

  private get session(): SqlSession {
    return this.database.session;
  }

  async addSubscription(s: SubscriptionRecord): Promise<void> {
    await this.session.run(
      `insert into "webhook_subscription" (${SUBSCRIPTION_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        s.id,
        s.url,
        JSON.stringify(s.events),
        s.description,
        s.secret,
        s.previousSecret,
        s.previousSecretUntil,
        s.createdAt,
        s.disabledAt,
      ],
    );
  }

  async subscriptions(): Promise<SubscriptionRecord[]> {
    const rows = await this.session.all<SubscriptionRow>(
      `select ${SUBSCRIPTION_COLUMNS} from "webhook_subscription" order by "created_at", "id"`,
    );
    return rows.map(subscriptionOf);
  }

  async subscription(id: string): Promise<SubscriptionRecord | undefined> {
    const [row] = await this.session.all<SubscriptionRow>(
      `select ${SUBSCRIPTION_COLUMNS} from "webhook_subscription" where "id" = ?`,
      [id],
    );
    return row && subscriptionOf(row);
  }

  removeSubscription(id: string): Promise<boolean> {
    return this.database.transaction(async (tx) => {
      await tx.run('delete from "webhook_attempt" where "subscription_id" = ?', [id]);
      await tx.run('delete from "webhook_delivery" where "subscription_id" = ?', [id]);
      return (await tx.run('delete from "webhook_subscription" where "id" = ?', [id])) > 0;
    });
  }

  async rotateSecret(id: string, secret: string, previousSecret: string, previousSecretUntil: number) {
    const changed = await this.session.run(
      'update "webhook_subscription" set "secret" = ?, "previous_secret" = ?, "previous_secret_until" = ? where "id" = ?',
      [secret, previousSecret, previousSecretUntil, id],
    );
    return changed > 0;
  }

  fanOut(batch: number, now: number): Promise<number> {
    return this.database.transaction(async (tx) => {
      // One fan-out at a time: two taking neighbouring batches at once could commit the later events' deliveries
      // first, and those would then overtake the earlier ones of the same key. SQLite has one writer anyway.
      if (tx.dialect === 'postgresql') {
        const [lock] = await tx.all<{ locked: boolean }>('select pg_try_advisory_xact_lock(?) as "locked"', [
          FAN_OUT_LOCK,
        ]);
        if (!lock?.locked) return 0;
      }
      const rows = await tx.all<{
        id: string;
        type: string;
        payload: string;
        occurred_at: number | string;
        trace_context: string | null;
      }>(
        `select "id", "type", "payload", "occurred_at", "trace_context" from "outbox_message" where "webhooks_fanned_out_at" is null
         order by "occurred_at", "id" limit ?`,
        [batch],
      );
      if (rows.length === 0) return 0;
      const enabled = (
        await tx.all<SubscriptionRow>(
          `select ${SUBSCRIPTION_COLUMNS} from "webhook_subscription" where "disabled_at" is null order by "created_at", "id"`,
        )
      ).map(subscriptionOf);
      // Each payload parsed once: the order and the rows both need its keys.
      const keys = new Map(rows.map((row) => [row, eventKeysOf(JSON.parse(row.payload) as OutboxEnvelope)]));
      const keysOf = (row: (typeof rows)[number]) => keys.get(row)!;
      // Set-based: the batch's events in one statement, then its deliveries in one, in the order they go out.
      const events: StoredEvent[] = [];
      const deliveries: Queued[] = [];
      for (const row of inSequenceOrder(rows, keysOf)) {
        const takers = enabled.filter((s) => subscribesTo(s.events, row.type));
        if (takers.length === 0) continue;
        const { orderingKey, sequence } = keysOf(row);
        events.push({
          id: String(row.id),
          type: row.type,
          payload: row.payload,
          occurredAt: Number(row.occurred_at),
          orderingKey,
          sequence,
          traceContext: row.trace_context ?? null,
        });
        for (const subscription of takers)
          deliveries.push({ subscriptionId: subscription.id, eventId: String(row.id), orderingKey });
      }
      await insertEvents(tx, events);
      await queue(tx, deliveries, now);
      const ids = rows.map((row) => String(row.id));
      await tx.run(`update "outbox_message" set "webhooks_fanned_out_at" = ? where "id" in (${list(ids.length)})`, [
        now,
        ...ids,
      ]);
      return rows.length;
    });
  }

  async claim(batch: number, leaseMs: number, now: number, run = 1): Promise<ClaimedDelivery[]> {
    // Two statements, no transaction around them: once a head is leased here, its followers are nobody else's to claim.
    const session = this.session;
    const heads = await this.claimHeads(session, batch, leaseMs, now);
    const followers =
      run > 1 && heads.length > 0 ? await this.claimFollowers(session, heads, run - 1, now + leaseMs) : [];
    return this.claimedOf(session, [...heads, ...followers]);
  }

  /** The oldest unsettled delivery of each key, where it is due and nobody holds it. */
  private claimHeads(tx: SqlSession, batch: number, leaseMs: number, now: number): Promise<ClaimedRow[]> {
    const lock = tx.dialect === 'postgresql' ? ' for update of "d" skip locked' : '';
    return tx.all<ClaimedRow>(
      `update "webhook_delivery" set "locked_until" = ?
       where "id" in (select "d"."id" from "webhook_delivery" "d"
         join "webhook_subscription" "s" on "s"."id" = "d"."subscription_id" and "s"."disabled_at" is null
         where "d"."state" = 'pending' and "d"."next_attempt_at" <= ? and "d"."locked_until" <= ?
           and not exists (select 1 from "webhook_delivery" "e" where "e"."subscription_id" = "d"."subscription_id"
             and "e"."ordering_key" = "d"."ordering_key" and "e"."state" = 'pending' and "e"."id" < "d"."id")
         order by "d"."id" limit ?${lock})
       returning "id", "subscription_id", "event_id", "ordering_key", "attempts", "created_at"`,
      [now + leaseMs, now, now, batch],
    );
  }

  /**
   * Behind each claimed head, up to `count` more unsettled deliveries of its key, in their order: no other worker
   * claims them, since only a key's oldest unsettled delivery is ever claimable and that one is leased here.
   */
  private claimFollowers(tx: SqlSession, heads: readonly ClaimedRow[], count: number, leasedUntil: number) {
    const behind = heads.map(
      () => `select "id" from (select "id" from "webhook_delivery" where "subscription_id" = ? and "ordering_key" = ?
         and "state" = 'pending' and "id" > ? order by "id" limit ?) "k"`,
    );
    return tx.all<ClaimedRow>(
      `update "webhook_delivery" set "locked_until" = ? where "id" in (${behind.join(' union all ')})
       returning "id", "subscription_id", "event_id", "ordering_key", "attempts", "created_at"`,
      [leasedUntil, ...heads.flatMap((head) => [head.subscription_id, head.ordering_key, Number(head.id), count])],
    );
  }

  /** The claimed rows with their subscriptions and events, each key's run together and in its order. */
  private async claimedOf(tx: SqlSession, rows: readonly ClaimedRow[]): Promise<ClaimedDelivery[]> {
    if (rows.length === 0) return [];
    const subscriptions = new Map(
      (
        await tx.all<SubscriptionRow>(
          `select ${SUBSCRIPTION_COLUMNS} from "webhook_subscription" where "id" in (${list(rows.length)})`,
          rows.map((row) => row.subscription_id),
        )
      ).map((row) => [String(row.id), subscriptionOf(row)]),
    );
    const events = new Map(
      (
        await tx.all<EventRow>(
          `select "id", "type", "payload", "occurred_at", "ordering_key", "sequence", "trace_context" from "webhook_event" where "id" in (${list(rows.length)})`,
          rows.map((row) => row.event_id),
        )
      ).map((row) => [row.id, eventOf(row)]),
    );
    // A key's run in its order, the keys in the order of their oldest delivery.
    const keyOf = (row: ClaimedRow) => `${row.subscription_id}\n${row.ordering_key}`;
    const firstOfKey = new Map<string, number>();
    for (const row of rows)
      firstOfKey.set(keyOf(row), Math.min(firstOfKey.get(keyOf(row)) ?? Infinity, Number(row.id)));
    return [...rows]
      .sort((a, b) => firstOfKey.get(keyOf(a))! - firstOfKey.get(keyOf(b))! || Number(a.id) - Number(b.id))
      .flatMap((row) => {
        const subscription = subscriptions.get(String(row.subscription_id));
        const event = events.get(row.event_id);
        // Removed between the claim and this read: nothing to send.
        if (!subscription || !event) return [];
        return [
          {
            id: String(row.id),
            subscription,
            event,
            attempts: Number(row.attempts),
            createdAt: Number(row.created_at),
          },
        ];
      });
  }

  async release(deliveryIds: readonly string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.session.run(
      `update "webhook_delivery" set "locked_until" = 0 where "state" = 'pending' and "id" in (${list(deliveryIds.length)})`,
      deliveryIds.map(Number),
    );
  }

  recordAttempts(results: readonly AttemptResult[], released: readonly string[] = []): Promise<void> {
    if (results.length === 0) return this.release(released);
    return this.database.transaction(async (tx) => {
      // A run is mostly deliveries that went through: one statement settles them all.
      const delivered = results.filter((r) => r.outcome.kind === 'delivered').map((r) => Number(r.attempt.deliveryId));
      const settled = new Set<string>();
      const settling = (rows: { id: number | string }[]) => rows.forEach((row) => settled.add(String(row.id)));
      if (delivered.length > 0)
        settling(
          await tx.all<{ id: number | string }>(
            `update "webhook_delivery" set "state" = 'delivered', "locked_until" = 0
             where "state" = 'pending' and "id" in (${list(delivered.length)}) returning "id"`,
            delivered,
          ),
        );
      for (const { attempt, outcome } of results) {
        if (outcome.kind === 'retry')
          settling(
            await tx.all(
              `update "webhook_delivery" set "attempts" = "attempts" + 1, "next_attempt_at" = ?, "locked_until" = 0
               where "id" = ? and "state" = 'pending' returning "id"`,
              [outcome.nextAttemptAt, Number(attempt.deliveryId)],
            ),
          );
        else if (outcome.kind === 'failed')
          settling(
            await tx.all(
              `update "webhook_delivery" set "state" = 'failed', "attempts" = "attempts" + 1, "locked_until" = 0
               where "id" = ? and "state" = 'pending' returning "id"`,
              [Number(attempt.deliveryId)],
            ),
          );
      }
      // Gone with its subscription meanwhile: there is nothing to record it against.
      const recorded = results.filter((r) => settled.has(String(r.attempt.deliveryId)));
      for (let from = 0; from < recorded.length; from += ROWS_PER_INSERT) {
        const chunk = recorded.slice(from, from + ROWS_PER_INSERT);
        await tx.run(
          `insert into "webhook_attempt" ("delivery_id", "subscription_id", "event_id", "event_type", "attempted_at", "status_code", "duration_ms", "error")
           values ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          chunk.flatMap(({ attempt }) => [
            Number(attempt.deliveryId),
            attempt.subscriptionId,
            attempt.eventId,
            attempt.eventType,
            attempt.attemptedAt,
            attempt.statusCode,
            attempt.durationMs,
            attempt.error?.slice(0, 500) ?? null,
          ]),
        );
      }
      for (const { attempt, outcome } of recorded)
        if (outcome.kind === 'failed' && outcome.disableSubscription)
          await tx.run('update "webhook_subscription" set "disabled_at" = ? where "id" = ? and "disabled_at" is null', [
            attempt.attemptedAt,
            attempt.subscriptionId,
          ]);
      if (released.length > 0)
        await tx.run(
          `update "webhook_delivery" set "locked_until" = 0 where "state" = 'pending' and "id" in (${list(released.length)})`,
          released.map(Number),
        );
    });
  }

  async attempts(subscriptionId: string, limit: number): Promise<AttemptRecord[]> {
    const rows = await this.session.all<AttemptRow>(
      `select "delivery_id", "subscription_id", "event_id", "event_type", "attempted_at", "status_code", "duration_ms", "error"
       from "webhook_attempt" where "subscription_id" = ? order by "attempted_at" desc, "id" desc limit ?`,
      [subscriptionId, limit],
    );
    return rows.map((row) => ({
      deliveryId: String(row.delivery_id),
      subscriptionId: String(row.subscription_id),
      eventId: row.event_id,
      eventType: row.event_type,
      attemptedAt: Number(row.attempted_at),
      statusCode: row.status_code === null ? null : Number(row.status_code),
      durationMs: Number(row.duration_ms),
      error: row.error,
    }));
  }

  replay(
    subscriptionId: string,
    from: ReplayFrom,
    now: number,
    rebuilt: readonly OutboxEnvelope[] = [],
  ): Promise<number> {
    return this.database.transaction(async (tx) => {
      const [row] = await tx.all<SubscriptionRow>(
        `select ${SUBSCRIPTION_COLUMNS} from "webhook_subscription" where "id" = ?`,
        [subscriptionId],
      );
      if (!row) return 0;
      await insertEvents(
        tx,
        rebuilt.map((envelope) => ({
          id: envelope.id,
          type: envelope.type,
          payload: JSON.stringify(envelope),
          occurredAt: Date.parse(envelope.occurredAt),
          ...eventKeysOf(envelope),
          traceContext: null,
        })),
      );
      const subscription = subscriptionOf(row);
      const events =
        'since' in from
          ? await tx.all<EventRow>(
              'select "id", "type", "ordering_key" from "webhook_event" where "occurred_at" >= ? order by "occurred_at", "id"',
              [from.since],
            )
          : await tx.all<EventRow>(
              'select "id", "type", "ordering_key" from "webhook_event" where "ordering_key" = ? and "sequence" >= ? order by "sequence", "occurred_at", "id"',
              [productOrderingKey(from.productId), from.sinceSequence],
            );
      const chosen = events.filter((event) => subscribesTo(subscription.events, event.type));
      await queue(
        tx,
        chosen.map((event) => ({ subscriptionId, eventId: event.id, orderingKey: event.ordering_key })),
        now,
      );
      return chosen.length;
    });
  }

  sweep(before: number, batch: number): Promise<number> {
    return this.database.transaction(async (tx) => {
      // Rows another instance is sweeping at this moment are skipped rather than waited for.
      const lock = tx.dialect === 'postgresql' ? ' for update skip locked' : '';
      const settled = await tx.all<{ id: number | string }>(
        `select "id" from "webhook_delivery" where "state" <> 'pending' and "created_at" < ? order by "id" limit ?${lock}`,
        [before, batch],
      );
      if (settled.length === 0) return 0;
      const ids = settled.map((row) => Number(row.id));
      await tx.run(`delete from "webhook_attempt" where "delivery_id" in (${list(ids.length)})`, ids);
      await tx.run(`delete from "webhook_delivery" where "id" in (${list(ids.length)})`, ids);
      await tx.run(
        `delete from "webhook_event" where "occurred_at" < ?
         and not exists (select 1 from "webhook_delivery" "d" where "d"."event_id" = "webhook_event"."id")`,
        [before],
      );
      return ids.length;
    });
  }
}

/**
 * Stores events once: an event of the same id stored before (by the fan-out, or an earlier replay) stays. A multi-row
 * insert per ROWS_PER_INSERT events.
 */
async function insertEvents(tx: SqlSession, events: readonly StoredEvent[]): Promise<void> {
  for (let from = 0; from < events.length; from += ROWS_PER_INSERT) {
    const chunk = events.slice(from, from + ROWS_PER_INSERT);
    await tx.run(
      `insert into "webhook_event" ("id", "type", "payload", "occurred_at", "ordering_key", "sequence", "trace_context")
       values ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')} on conflict ("id") do nothing`,
      chunk.flatMap((event) => [
        event.id,
        event.type,
        event.payload,
        event.occurredAt,
        event.orderingKey,
        event.sequence,
        event.traceContext ?? null,
      ]),
    );
  }
}

type Queued = { readonly subscriptionId: string; readonly eventId: string; readonly orderingKey: string };

/** Queues deliveries in their order: a multi-row insert numbers its rows in the order of its values. */
async function queue(tx: SqlSession, deliveries: readonly Queued[], now: number): Promise<void> {
  for (let from = 0; from < deliveries.length; from += ROWS_PER_INSERT) {
    const chunk = deliveries.slice(from, from + ROWS_PER_INSERT);
    await tx.run(
      `insert into "webhook_delivery" ("subscription_id", "event_id", "ordering_key", "state", "attempts", "next_attempt_at", "locked_until", "created_at")
       values ${chunk.map(() => "(?, ?, ?, 'pending', 0, 0, 0, ?)").join(', ')}`,
      chunk.flatMap((d) => [d.subscriptionId, d.eventId, d.orderingKey, now]),
    );
  }
}
