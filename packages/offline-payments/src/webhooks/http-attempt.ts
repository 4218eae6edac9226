import { stripeSignature } from './signature';
import type { Attempt } from './webhook-dispatcher';

/**
 * One delivery attempt over HTTP: the event's JSON POSTed to the endpoint's URL, signed afresh with the current time
 * (as Stripe signs each attempt), within `timeoutMs`. Answers whether the endpoint said 2xx; the body is drained.
 */
export function httpAttempt(timeoutMs: number, now: () => number = () => Math.floor(Date.now() / 1000)): Attempt {
  return async (delivery, stopping) => {
    try {
      const response = await fetch(delivery.endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'stripe-signature': stripeSignature(delivery.payload, delivery.endpoint.secret, now()),
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        },
        body: delivery.payload,
        signal: AbortSignal.any([stopping, AbortSignal.timeout(timeoutMs)]),
      });
      await response.arrayBuffer().catch(() => undefined);
      return response.ok;
    } catch {
      return false;
    }
  };
}
