import { Webhook } from 'standardwebhooks';

/** What a delivery carries: the body `{ type, timestamp, data }` and the Standard Webhooks headers. */
export interface SignedMessage {
  readonly body: string;
  readonly headers: {
    readonly 'webhook-id': string;
    readonly 'webhook-timestamp': string;
    readonly 'webhook-signature': string;
  };
}

/**
 * Signs with every secret given (the current one, and the one a rotation replaced while it still signs): each makes
 * one `v1,<base64>` entry, space-separated, so a receiver holding either secret verifies. The signing is the
 * standardwebhooks package's own, the one receivers verify with.
 */
export function signMessage(secrets: readonly string[], webhookId: string, at: Date, body: string): SignedMessage {
  const signature = secrets.map((secret) => new Webhook(secret).sign(webhookId, at, body)).join(' ');
  return {
    body,
    headers: {
      'webhook-id': webhookId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    },
  };
}

/** The body of a delivery, from the outbox envelope: the event's type, when it happened, and its data. */
export function deliveryBody(envelopeJson: string): string {
  const { type, occurredAt, data } = JSON.parse(envelopeJson) as { type: string; occurredAt: string; data: unknown };
  return JSON.stringify({ type, timestamp: occurredAt, data });
}
