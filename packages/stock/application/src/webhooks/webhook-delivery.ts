import type { KeyObject } from 'node:crypto';
import {
  abandonHttpClientSpan,
  contextFromStored,
  endHttpClientSpan,
  every,
  type Logger,
  startHttpClientSpan,
} from '@platform/runtime';
import { RETRY_FOR_MS, retryDelayMs as defaultRetryDelayMs, webhookIdOf } from '@stock/domain';
import type { SecretBox } from './secret-box';
import { deliveryBody, signingKey, signMessage } from './signing';
import type { SendResult, WebhookSender } from './webhook-sender';
import type {
  AttemptRecord,
  AttemptResult,
  ClaimedDelivery,
  DeliveryOutcome,
  SubscriptionRecord,
  WebhookStore,
} from '@stock/domain';

export interface WebhookDeliveryOptions {
  readonly store: WebhookStore;
  readonly secrets: SecretBox;
  readonly sender: WebhookSender;
  readonly logger: Logger;
  /** Epoch milliseconds; tests move it instead of waiting for back-off. */
  readonly now?: () => number;
  readonly retryDelayMs?: (failedAttempts: number) => number;
  readonly retryForMs?: number;
  /** How long a claimed delivery stays this worker's: longer than a connect and an answer may take. */
  readonly leaseMs?: number;
  /** How many keys one claim leases (each key's deliveries go one after another, the keys at once). */
  readonly batch?: number;
  /** How many deliveries of one key one claim leases and sends in turn: a hot product's events need no claim each. */
  readonly run?: number;
}

export interface BackgroundWork {
  stop(): Promise<void>;
}

/** The signing key of a sealed secret, each opened once: a claim's deliveries mostly share a subscription. */
type SigningKeys = (sealed: string, subscriptionId: string) => KeyObject;

function signingKeysOf(secrets: SecretBox): SigningKeys {
  const opened = new Map<string, KeyObject>();
  return (sealed, subscriptionId) => {
    let key = opened.get(sealed);
    if (key === undefined) opened.set(sealed, (key = signingKey(secrets.open(sealed, subscriptionId))));
    return key;
  };
}

/** The keys that sign now: the current secret's, and a replaced one's until its time is up. */
function keysSigningAt(subscription: SubscriptionRecord, keys: SigningKeys, now: number): KeyObject[] {
  const current = keys(subscription.secret, subscription.id);
  const previous =
    subscription.previousSecret && (subscription.previousSecretUntil ?? 0) > now
      ? [keys(subscription.previousSecret, subscription.id)]
      : [];
  return [current, ...previous];
}

/**
 * Fans the outbox out to subscriptions and delivers, at least once: a 2xx is delivered; a 410 gives the delivery up
 * and disables the subscription; anything else (another status, a timeout, a refused connection, a forbidden
 * address) is retried on the back-off schedule until three days after the delivery was made, then given up. Any
 * number of workers may run: each sends only what it leased.
 */
export class WebhookDelivery {
  private readonly now: () => number;
  private readonly retryDelayMs: (failedAttempts: number) => number;
  private readonly retryForMs: number;
  private readonly leaseMs: number;
  private readonly batch: number;
  private readonly run: number;

  constructor(private readonly options: WebhookDeliveryOptions) {
    this.now = options.now ?? Date.now;
    this.retryDelayMs = options.retryDelayMs ?? defaultRetryDelayMs;
    this.retryForMs = options.retryForMs ?? RETRY_FOR_MS;
    this.leaseMs = options.leaseMs ?? 120_000;
    this.batch = options.batch ?? 50;
    this.run = options.run ?? 50;
  }

  /** One batch of outbox events to deliveries; answers how many events it took. */
  fanOut(): Promise<number> {
    return this.options.store.fanOut(this.batch * 4, this.now());
  }

  /**
   * Claims one batch of due deliveries and sends them: the keys at once, each key's run one after another, up to the
   * first that is not delivered (the rest of that run is released, to go behind it in order); answers how many it
   * claimed.
   */
  async deliverDue(): Promise<number> {
    const claimedAt = this.now();
    const claimed = await this.options.store.claim(this.batch, this.leaseMs, claimedAt, this.run);
    const runs = new Map<string, ClaimedDelivery[]>();
    for (const delivery of claimed) {
      const key = `${delivery.subscription.id}\n${delivery.event.orderingKey}`;
      const run = runs.get(key);
      if (run) run.push(delivery);
      else runs.set(key, [delivery]);
    }
    // An attempt may take up to half the lease (the lease is twice the longest attempt and more): none starts later,
    // so the lease never runs out under a run still being sent.
    const startBy = claimedAt + this.leaseMs / 2;
    const keys = signingKeysOf(this.options.secrets);
    await Promise.all([...runs.values()].map((run) => this.send(run, startBy, keys)));
    return claimed.length;
  }

  /**
   * Sends a key's run in its order up to the first not delivered, or until `startBy`; then records its attempts and
   * releases the rest in one write. A crash before that write sends the run's deliveries again once their lease ends:
   * at least once, as ever.
   */
  private async send(run: readonly ClaimedDelivery[], startBy: number, keys: SigningKeys): Promise<void> {
    const results: AttemptResult[] = [];
    let next = 0;
    while (next < run.length && (next === 0 || this.now() <= startBy)) {
      const result = await this.attempt(run[next]!, keys);
      results.push(result);
      next++;
      if (result.outcome.kind !== 'delivered') break;
    }
    await this.options.store.recordAttempts(
      results,
      run.slice(next).map((delivery) => delivery.id),
    );
    for (const [i, { attempt, outcome }] of results.entries()) this.log(run[i]!, attempt, outcome);
  }

  /**
   * Fans out and delivers until nothing is left that is due now. A fan-out that took less than a whole batch found the
   * outbox empty behind it: asking again at once would be a transaction for nothing.
   */
  async drain(): Promise<void> {
    const fanOutAll = async () => {
      while ((await this.fanOut()) === this.batch * 4);
    };
    await fanOutAll();
    while ((await this.deliverDue()) > 0) await fanOutAll();
  }

  /** Polls every `pollMs` until stopped. */
  start(pollMs: number): BackgroundWork {
    return every(pollMs, 'webhook delivery', () => this.drain(), this.options.logger);
  }

  /**
   * Forgets settled deliveries (and their attempts and events) made more than `retentionMs` ago, a batch at a time
   * until none is left; answers how many deliveries it forgot.
   */
  async sweep(retentionMs: number): Promise<number> {
    let forgotten = 0;
    for (let swept = this.batch; swept === this.batch; forgotten += swept)
      swept = await this.options.store.sweep(this.now() - retentionMs, this.batch);
    return forgotten;
  }

  /** Sweeps every `everyMs` until stopped. */
  startSweeping(everyMs: number, retentionMs: number): BackgroundWork {
    return every(everyMs, 'webhook sweep', () => this.sweep(retentionMs), this.options.logger);
  }

  private async attempt(delivery: ClaimedDelivery, keys: SigningKeys): Promise<AttemptResult> {
    const { subscription, event } = delivery;
    const startedAt = this.now();
    const started = performance.now();
    // A client span per attempt, continuing the trace that wrote the event (stored with its outbox row); the receiver
    // gets its traceparent. With tracing off, nothing.
    const client = startHttpClientSpan('POST', subscription.url, contextFromStored(event.traceContext), {
      orNewTrace: true,
    });
    client?.span?.setAttributes({ 'webhook.id': webhookIdOf(event.id), 'webhook.event.type': event.type });
    let result: SendResult;
    try {
      const message = signMessage(
        keysSigningAt(subscription, keys, startedAt),
        webhookIdOf(event.id),
        new Date(startedAt),
        deliveryBody(event.payload),
      );
      result = await this.options.sender.send(
        subscription.url,
        client ? { ...message, headers: { ...message.headers, ...client.headers } } : message,
      );
    } catch (error) {
      result = { statusCode: null, error: error instanceof Error ? error.message : String(error) };
    }
    if (client && result.statusCode !== null) endHttpClientSpan(client.span, result.statusCode);
    else if (client) abandonHttpClientSpan(client.span, new Error('error' in result ? result.error : 'no answer'));
    const attempt: AttemptRecord = {
      deliveryId: delivery.id,
      subscriptionId: subscription.id,
      eventId: event.id,
      eventType: event.type,
      attemptedAt: startedAt,
      statusCode: result.statusCode,
      durationMs: Math.round(performance.now() - started),
      error: 'error' in result ? result.error : result.statusCode >= 300 ? result.body.slice(0, 200) || null : null,
    };
    return { attempt, outcome: this.outcomeOf(delivery, result.statusCode) };
  }

  private outcomeOf(delivery: ClaimedDelivery, statusCode: number | null): DeliveryOutcome {
    if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { kind: 'delivered' };
    if (statusCode === 410) return { kind: 'failed', disableSubscription: true };
    const nextAttemptAt = this.now() + this.retryDelayMs(delivery.attempts + 1);
    if (nextAttemptAt > delivery.createdAt + this.retryForMs) return { kind: 'failed', disableSubscription: false };
    return { kind: 'retry', nextAttemptAt };
  }

  private log(delivery: ClaimedDelivery, attempt: AttemptRecord, outcome: DeliveryOutcome): void {
    const fields = {
      subscriptionId: attempt.subscriptionId,
      eventId: attempt.eventId,
      type: attempt.eventType,
      statusCode: attempt.statusCode,
      attempts: delivery.attempts + 1,
      ...(attempt.error && { error: attempt.error }),
    };
    if (outcome.kind === 'delivered') this.options.logger.debug('webhook delivered', fields);
    else if (outcome.kind === 'retry')
      this.options.logger.info('webhook delivery failed; it will be retried', {
        ...fields,
        nextAttemptAt: new Date(outcome.nextAttemptAt).toISOString(),
      });
    else if (outcome.disableSubscription)
      this.options.logger.warn('webhook receiver answered 410 Gone: its subscription is disabled', fields);
    else this.options.logger.warn('webhook delivery given up after three days of retries', fields);
  }
}
