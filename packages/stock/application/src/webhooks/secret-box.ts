import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const FORMAT = 'v1';

/** WEBHOOK_SECRETS_KEY is missing or is not 32 bytes in base64. */
export class SecretsKeyError extends Error {}

/** How to make a key, as the start-up line and docs/operations.md say it. */
export const SECRETS_KEY_HINT = 'openssl rand -base64 32';

/** The 32-byte AES key that WEBHOOK_SECRETS_KEY holds in base64, or a one-line reason it is unusable. */
export function parseSecretsKey(text: string): Buffer {
  if (!text)
    throw new SecretsKeyError(
      `WEBHOOK_SECRETS_KEY is required when webhooks are on (make one with \`${SECRETS_KEY_HINT}\`).`,
    );
  const key = Buffer.from(text, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || key.length !== KEY_BYTES)
    throw new SecretsKeyError(
      `WEBHOOK_SECRETS_KEY must be ${KEY_BYTES} bytes in base64 (make one with \`${SECRETS_KEY_HINT}\`).`,
    );
  return key;
}

/**
 * Subscription secrets at rest, under AES-256-GCM with a key the database does not hold: a dump alone cannot sign.
 * The subscription id is the additional data, so a ciphertext copied onto another row does not open there.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new SecretsKeyError(`The secrets key must be ${KEY_BYTES} bytes.`);
  }

  seal(secret: string, subscriptionId: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(subscriptionId));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [FORMAT, iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join(':');
  }

  open(stored: string, subscriptionId: string): string {
    const [format, iv, tag, sealed] = stored.split(':');
    if (format !== FORMAT || !iv || !tag || !sealed)
      throw new Error(`A webhook secret is not in the ${FORMAT} format.`);
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(subscriptionId));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
  }
}

/** A new signing secret in the Standard Webhooks format: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
