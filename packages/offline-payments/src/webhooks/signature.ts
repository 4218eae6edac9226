import { createHmac } from 'node:crypto';

/**
 * The Stripe-Signature header for `payload` at `timestamp` (seconds): `t=…,v1=…`, v1 the hex HMAC-SHA256 of
 * `${t}.${payload}` keyed by the endpoint's whole `whsec_…` secret, as Stripe signs and its SDKs verify.
 */
export function stripeSignature(payload: string, secret: string, timestamp: number): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${signature}`;
}
