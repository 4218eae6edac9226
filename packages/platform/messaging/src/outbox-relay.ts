import type { ClaimedOutboxMessage, OutboxStore } from '@platform/kernel';
import { contextFromStored, inSpan, SpanKind, tracingIsOn } from '@platform/runtime';
import type { MessagingLogger } from './broker';
import type { OutgoingEvent } from './event-publisher';
import type { MessagingMetrics } from './messaging-metrics';

export interface RelaySettings {
  /** Rows leased per round. */
  readonly batchSize?: number;
  /**
   * How long a claimed row stays this relay's: a relay that dies mid-batch delays its rows by this much, and loses
   * none.
   */
  readonly leaseMs?: number;
  /** How long the relay sleeps when the outbox has nothing due (`wake` cuts it short). */
  readonly pollMs?: number;
  /** The first retry of a failed publish waits this long, each further one twice as long, up to `maxBackoffMs`. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  /**
   * How long a publish may wait for its confirm before it counts as failed (a blocked broker may confirm it later: the
   * twin is dropped by the inbox).
   */
  readonly publishTimeoutMs?: number;
  /** How long `stop` waits for publishes in flight before it leaves them to their lease. */
  readonly stopTimeoutMs?: number;
}

export interface RelayOptions extends RelaySettings {
  readonly store: OutboxStore;
  readonly publisher: { publish(event: OutgoingEvent): Promise<void> };
  readonly logger: MessagingLogger;
  readonly metrics?: Pick<MessagingMetrics, 'published' | 'publishFailed'>;
  readonly now?: () => number;
}

const DEFAULTS: Required<RelaySettings> = {
  batchSize: 100,
  leaseMs: 30_000,
  pollMs: 250,
  backoffMs: 500,
  maxBackoffMs: 60_000,
  publishTimeoutMs: 10_000,
  stopTimeoutMs: 5_000,
};

/**
 * The wait before attempt `attempts + 1`: doubling, capped, with a fifth of jitter so that relays do not retry in step.
 */
export function backoffDelay(attempts: number, base: number, max: number, random: () => number = Math.random): number {
  const delay = Math.min(max, base * 2 ** Math.max(0, attempts - 1));
  return Math.round(delay * (0.8 + 0.4 * random()));
}

/**
 * Publishes what the outbox holds, forever. Each round leases a batch of due
 * rows (never a row another relay leased: several instances may run one
 * each), publishes them with publisher confirms, and marks as published only
 * those the broker confirmed. A failed publish is retried with backoff,
 * without end: there is no terminal failed state that nothing reads again.
 * A relay killed between the confirm and the mark publishes those rows again
 * once their lease ends; the consumers' inboxes drop the twins.
 */
export class OutboxRelay {
  private readonly settings: Required<RelaySettings>;
  private readonly now: () => number;
  private running: Promise<void> | undefined;
  private stopped = false;
  private sleeping: { timer: NodeJS.Timeout; wake: () => void } | undefined;
  /** A wake that came while the relay was not asleep (mid-round): the round it ends does not sleep. */
  private woken = false;
  private failing = false;

  constructor(private readonly options: RelayOptions) {
    const given = Object.fromEntries(
      Object.entries(options).filter(([key, value]) => Object.hasOwn(DEFAULTS, key) && value !== undefined),
    );
    this.settings = { ...DEFAULTS, ...given };
    this.now = options.now ?? Date.now;
  }

  start(): this {
    this.running ??= this.loop();
    return this;
  }

  /**
   * Cuts the current sleep short: something was just written to the outbox.
   * Mid-round, the next sleep is skipped instead, since the round may have
   * claimed before the new rows committed. Polling stays the guarantee: a
   * wake that never comes (another instance wrote the rows) only costs
   * latency, up to `pollMs`.
   */
  wake(): void {
    if (this.sleeping) this.sleeping.wake();
    else this.woken = true;
  }

  /** Stops after the round in progress, waiting at most `stopTimeoutMs` for its publishes. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    if (!this.running) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.settings.stopTimeoutMs)));
    await Promise.race([this.running, timeout]);
    clearTimeout(timer);
  }

  /** One round: lease, publish, mark. Answers how many rows it leased (tests drive the relay round by round). */
  async relayOnce(): Promise<number> {
    const { batchSize, leaseMs } = this.settings;
    const claimed = await this.options.store.claim(batchSize, leaseMs, this.now());
    if (claimed.length === 0) return 0;
    // Published in outbox order on one channel; the confirms come back as the broker takes each.
    const outcomes = await Promise.allSettled(claimed.map((message) => this.publish(message)));
    const confirmed = claimed.filter((_, i) => outcomes[i]!.status === 'fulfilled');
    await this.options.store.markPublished(
      confirmed.map((message) => message.id),
      this.now(),
    );
    for (const message of confirmed) this.options.metrics?.published(message.type);
    const failed = claimed.flatMap((message, i) =>
      outcomes[i]!.status === 'rejected' ? [[message, (outcomes[i] as PromiseRejectedResult).reason] as const] : [],
    );
    for (const [message, reason] of failed) await this.retryLater(message, reason);
    this.reportHealth(failed.length === 0 ? undefined : String(failed[0]![1]));
    return claimed.length;
  }

  /**
   * With tracing on, a publish is a producer span continuing the trace stored with the row (the outbox write's), and
   * the publisher carries the span's context in the message's headers.
   */
  private publish(message: ClaimedOutboxMessage): Promise<void> {
    if (!tracingIsOn()) return this.publishNow(message);
    const attributes = {
      'messaging.system': 'rabbitmq',
      'messaging.operation.type': 'send',
      'messaging.destination.name': message.type,
      'messaging.message.id': message.id,
    };
    return inSpan(
      `publish ${message.type}`,
      { kind: SpanKind.PRODUCER, parent: contextFromStored(message.traceContext), attributes },
      () => this.publishNow(message),
    );
  }

  private publishNow(message: ClaimedOutboxMessage): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no confirm within ${this.settings.publishTimeoutMs} ms`)),
        this.settings.publishTimeoutMs,
      );
    });
    return Promise.race([this.options.publisher.publish(message), timeout]).finally(() => clearTimeout(timer));
  }

  private async retryLater(message: ClaimedOutboxMessage, reason: unknown): Promise<void> {
    const attempts = message.attempts + 1;
    const delay = backoffDelay(attempts, this.settings.backoffMs, this.settings.maxBackoffMs);
    this.options.metrics?.publishFailed(message.type);
    await this.options.store.retryLater(message.id, attempts, this.now() + delay);
    if (attempts === 1 || attempts % 10 === 0)
      this.options.logger.warn('an event could not be published yet; it stays in the outbox and is retried', {
        eventId: message.id,
        type: message.type,
        attempts,
        retryInMs: delay,
        error: String(reason),
      });
  }

  /** Logs the relay starting to fail and working again once each, not on every round. */
  private reportHealth(failure: string | undefined): void {
    if (failure !== undefined && !this.failing)
      this.options.logger.warn('the outbox relay cannot publish; events wait in the outbox', { error: failure });
    if (failure === undefined && this.failing) this.options.logger.info('the outbox relay publishes again');
    this.failing = failure !== undefined;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let leased: number;
      try {
        leased = await this.relayOnce();
      } catch (error) {
        // The store itself failed (the database is down): rows stay where they are, the next round tries again.
        this.reportHealth(String(error));
        await this.sleep(this.settings.pollMs * 4);
        continue;
      }
      if (leased < this.settings.batchSize) await this.sleep(this.settings.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped || this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleeping = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleeping = { timer, wake };
    });
  }
}
