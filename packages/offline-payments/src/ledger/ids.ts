import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` random letters and digits, as Stripe's ids end. */
function randomTail(length: number): string {
  return [...randomBytes(length)].map((byte) => ALPHABET[byte % ALPHABET.length]).join('');
}

/** A Stripe-shaped id: the object's prefix (`pi`, `re`, `evt`, …), an underscore and 24 random characters. */
export function stripeId(prefix: string): string {
  return `${prefix}_${randomTail(24)}`;
}

/** A PaymentIntent's client secret: its id, `_secret_` and a random tail, as Stripe forms it. */
export function clientSecretFor(intentId: string): string {
  return `${intentId}_secret_${randomTail(25)}`;
}

/** A webhook endpoint's signing secret. */
export function webhookSecret(): string {
  return `whsec_${randomTail(32)}`;
}
