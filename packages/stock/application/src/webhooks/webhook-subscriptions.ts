import { DomainError, type OutboxEnvelope, ValidationError } from '@platform/kernel';
import { randomUUID } from 'node:crypto';
import { checkTarget, TargetRefusedError } from './safe-target';
import { newWebhookSecret, type SecretBox } from './secret-box';
import type { AttemptRecord, ReplayFrom, SubscriptionRecord, WebhookStore } from '@stock/domain';

export type WebhookErrorCode = 'VALIDATION_FAILED' | 'WEBHOOK_SUBSCRIPTION_NOT_FOUND';

export class WebhookSubscriptionNotFoundError extends DomainError<'WEBHOOK_SUBSCRIPTION_NOT_FOUND'> {
  readonly code = 'WEBHOOK_SUBSCRIPTION_NOT_FOUND';

  constructor(readonly id: string) {
    super(`There is no webhook subscription ${id}.`);
  }
}

/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_SIGNS_FOR_MS = 24 * 3_600_000;

export interface NewSubscription {
  readonly url: string;
  readonly events: readonly string[];
  readonly description?: string;
}

export interface WebhookSubscriptionsOptions {
  readonly store: WebhookStore;
  readonly secrets: SecretBox;
  /** Accept URLs that resolve to loopback and private addresses (tests, private deployments). */
  readonly allowPrivateTargets: boolean;
  readonly now?: () => number;
  /**
   * Where a replay by product and sequence rebuilds the events from, beside the events stored when they were fanned
   * out: the service's own record of what happened (stock's ledger). Absent: stored events only.
   */
  readonly replaySource?: WebhookReplaySource;
}

/**
 * The events a service rebuilds from its own records for one product, from a sequence on (inclusive), in sequence
 * order, each with the id it had when first written (so its webhook-id stays). The platform knows no event type: the
 * service says what its records hold.
 */
export type WebhookReplaySource = (productId: number | string, sinceSequence: number) => Promise<OutboxEnvelope[]>;

/** A subscription with the secret it signs with, as only its creation and a rotation answer it. */
export interface SubscriptionWithSecret {
  readonly subscription: SubscriptionRecord;
  readonly secret: string;
}

/**
 * What the subscription API does: create (sending nothing), read, remove, rotate the secret, list attempts, replay.
 * Secrets are sealed before they are stored and shown once.
 */
export class WebhookSubscriptions {
  private readonly now: () => number;

  constructor(private readonly options: WebhookSubscriptionsOptions) {
    this.now = options.now ?? Date.now;
  }

  async create({ url, events, description = '' }: NewSubscription): Promise<SubscriptionWithSecret> {
    await this.checkUrl(url);
    const id = randomUUID();
    const secret = newWebhookSecret();
    const subscription: SubscriptionRecord = {
      id,
      url,
      events: [...new Set(events)],
      description,
      secret: this.options.secrets.seal(secret, id),
      previousSecret: null,
      previousSecretUntil: null,
      createdAt: this.now(),
      disabledAt: null,
    };
    await this.options.store.addSubscription(subscription);
    return { subscription, secret };
  }

  list(): Promise<SubscriptionRecord[]> {
    return this.options.store.subscriptions();
  }

  async get(id: string): Promise<SubscriptionRecord> {
    const subscription = await this.options.store.subscription(id);
    if (!subscription) throw new WebhookSubscriptionNotFoundError(id);
    return subscription;
  }

  async remove(id: string): Promise<void> {
    if (!(await this.options.store.removeSubscription(id))) throw new WebhookSubscriptionNotFoundError(id);
  }

  /** A new secret; the one it replaces keeps signing beside it for 24 hours, so receivers can switch without a gap. */
  async rotateSecret(id: string): Promise<SubscriptionWithSecret> {
    const subscription = await this.get(id);
    const secret = newWebhookSecret();
    const sealed = this.options.secrets.seal(secret, id);
    const until = this.now() + PREVIOUS_SECRET_SIGNS_FOR_MS;
    if (!(await this.options.store.rotateSecret(id, sealed, subscription.secret, until)))
      throw new WebhookSubscriptionNotFoundError(id);
    return {
      subscription: {
        ...subscription,
        secret: sealed,
        previousSecret: subscription.secret,
        previousSecretUntil: until,
      },
      secret,
    };
  }

  async attempts(id: string, limit: number): Promise<AttemptRecord[]> {
    await this.get(id);
    return this.options.store.attempts(id, limit);
  }

  /**
   * Queues events again, with their original webhook-ids; answers how many. By product and sequence, what the replay
   * source rebuilds is sent too, so the replay holds what the service's records hold.
   */
  async replay(id: string, from: ReplayFrom): Promise<number> {
    await this.get(id);
    const { replaySource } = this.options;
    const rebuilt = replaySource && 'productId' in from ? await replaySource(from.productId, from.sinceSequence) : [];
    return this.options.store.replay(id, from, this.now(), rebuilt);
  }

  private async checkUrl(url: string): Promise<void> {
    try {
      await checkTarget(url, this.options.allowPrivateTargets);
    } catch (error) {
      if (error instanceof TargetRefusedError) throw new ValidationError({ url: [error.message] });
      throw error;
    }
  }
}
