import { stripeId } from '../ledger/ids';
import type { Publish } from '../ledger/payment-ledger';
import type { WebhookDispatcher } from './webhook-dispatcher';
import type { WebhookEndpoints } from './webhook-endpoints';

export interface EventPublisherOptions {
  readonly endpoints: WebhookEndpoints;
  readonly dispatcher: WebhookDispatcher;
  readonly apiVersion: string;
  readonly now?: () => number;
}

/**
 * Makes each change the ledger publishes into a Stripe Event (`evt_…`, the object as it was at that moment) and hands
 * one delivery of its JSON to the dispatcher per endpoint that wants its type. Stripe pretty-prints an event's
 * body; so does this, and every attempt sends those exact bytes.
 */
export function eventPublisher({
  endpoints,
  dispatcher,
  apiVersion,
  now = () => Math.floor(Date.now() / 1000),
}: EventPublisherOptions): Publish {
  return (type, object) => {
    const subscribed = endpoints.subscribedTo(type);
    if (subscribed.length === 0) return;
    const event = {
      id: stripeId('evt'),
      object: 'event',
      api_version: apiVersion,
      created: now(),
      data: { object },
      livemode: false,
      pending_webhooks: subscribed.length,
      request: null,
      type,
    };
    const payload = JSON.stringify(event, null, 2);
    for (const endpoint of subscribed) dispatcher.dispatch({ eventId: event.id, eventType: type, endpoint, payload });
  };
}
