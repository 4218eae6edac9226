import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/** What a delivery carries: the body `{ type, timestamp, data }` and the Standard Webhooks headers. */
export interface SignedMessage {
  readonly body: string;
  readonly headers: {
    readonly 'webhook-id': string;
    readonly 'webhook-timestamp': string;
    readonly 'webhook-signature': string;
  };
}

/** The prefix Standard Webhooks secrets are written with, before the key in base64. */
const SECRET_PREFIX = 'whsec_';

/**
 * The HMAC key of a Standard Webhooks secret (`whsec_` and the key in base64). Made once and reused: Node's HMAC makes
 * a key object of a raw key on every call otherwise, which costs ten times the hashing of a delivery.
 */
export function signingKey(secret: string): KeyObject {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  if (key.length === 0) throw new Error("Secret can't be empty.");
  return createSecretKey(key);
}

/**
 * Signs with every key given (the current secret's, and the one a rotation replaced while it still signs): each makes
 * one `v1,<base64>` entry, HMAC-SHA256 of `<id>.<timestamp>.<body>`, space-separated, so a receiver holding either
 * secret verifies. Node's HMAC (OpenSSL), not the standardwebhooks package's, which hashes in JavaScript on every
 * delivery; the tests verify with that package, as receivers do.
 */
export function signMessage(keys: readonly KeyObject[], webhookId: string, at: Date, body: string): SignedMessage {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signed = `${webhookId}.${timestamp}.${body}`;
  return {
    body,
    headers: {
      'webhook-id': webhookId,
      'webhook-timestamp': timestamp,
      'webhook-signature': keys
        .map((key) => `v1,${createHmac('sha256', key).update(signed).digest('base64')}`)
        .join(' '),
    },
  };
}

/** The body of a delivery, from the outbox envelope: the event's type, when it happened, and its data. */
export function deliveryBody(envelopeJson: string): string {
  const { type, occurredAt, data } = JSON.parse(envelopeJson) as { type: string; occurredAt: string; data: unknown };
  return JSON.stringify({ type, timestamp: occurredAt, data });
}
