import { duration, integer, oneOf, optionalText } from '@platform/runtime';

/** The settings of a service that sends webhooks; off unless WEBHOOKS=on. */
export function webhookSettings() {
  return {
    /** on: the subscription API is served and the outbox's events are delivered to subscribers. */
    webhooks: oneOf('WEBHOOKS', 'off', ['off', 'on']),
    /** 32 random bytes in base64 (`openssl rand -base64 32`): the AES-256-GCM key of the stored secrets. */
    webhookSecretsKey: optionalText('WEBHOOK_SECRETS_KEY'),
    /** true: subscriptions may name loopback and private addresses (tests, private deployments). */
    webhookAllowPrivateTargets: oneOf('WEBHOOK_ALLOW_PRIVATE_TARGETS', 'false', ['false', 'true']),
    /** How long the delivery worker sleeps when nothing is due. */
    webhookPollMs: integer('WEBHOOK_POLL_MS', 500, 10, 60_000),
    webhookConnectTimeoutMs: integer('WEBHOOK_CONNECT_TIMEOUT_MS', 5_000, 100, 60_000),
    /** How long a receiver may take to answer (its headers, then each part of its body). */
    webhookAnswerTimeoutMs: integer('WEBHOOK_ANSWER_TIMEOUT_MS', 10_000, 100, 60_000),
    /**
     * How long a settled delivery (delivered, or given up after three days of retries) is kept, with its attempts and
     * its event, before the sweep forgets it: `7d`, `36h`, `30m`, `90s`.
     */
    webhookRetentionMs: duration('WEBHOOK_RETENTION', 7 * 86_400_000, 1_000, 365 * 86_400_000),
  };
}

export type WebhookSettings = {
  readonly webhooks: 'off' | 'on';
  readonly webhookSecretsKey: string;
  readonly webhookAllowPrivateTargets: 'false' | 'true';
  readonly webhookPollMs: number;
  readonly webhookConnectTimeoutMs: number;
  readonly webhookAnswerTimeoutMs: number;
  readonly webhookRetentionMs: number;
};
