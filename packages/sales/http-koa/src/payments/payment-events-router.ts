import Router from '@koa/router';
import { type Logger, logWith, queryParameters, RequestError } from '@platform/http';
import type { HandlePaymentEvent } from '@sales/application';
import { type PaymentEvent, PaymentEventRefusedError, type PaymentProvider } from '@sales/domain';
import type { Context } from 'koa';
import type { PaymentEventCounter } from './payment-metrics';

/** Stripe's events are a few kilobytes; a hundred times that is no event. */
const BODY_LIMIT_BYTES = 256 * 1024;

export interface PaymentEventsRouterOptions {
  readonly provider: PaymentProvider;
  readonly handlePaymentEvent: HandlePaymentEvent;
  readonly counter: PaymentEventCounter;
  readonly logger: Logger;
}

/**
 * The body exactly as sent, at most BODY_LIMIT_BYTES: the signature is over these bytes, so nothing may parse,
 * decode or re-encode them first (a provider sends its webhooks without a content coding).
 */
async function rawBody(ctx: Context): Promise<Buffer> {
  const coding = ctx.get('Content-Encoding').trim().toLowerCase();
  if (coding !== '' && coding !== 'identity')
    throw new RequestError('UNSUPPORTED_MEDIA_TYPE', 'A webhook is read as it was signed, without a content coding.');
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > BODY_LIMIT_BYTES)
      throw new RequestError('PAYLOAD_TOO_LARGE', `The request body is larger than ${BODY_LIMIT_BYTES / 1024} KiB.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The event's type as the log and the metrics name it: the port's kind, or the provider's own name for the rest. */
const typeOf = (event: PaymentEvent) => (event.kind === 'other' ? event.providerType : event.kind);

/**
 * POST /api/payment-events: the provider's webhooks. No token: the provider proves itself by the signature over the
 * raw body (PAYMENTS_WEBHOOK_SECRET); a missing, bad or too old signature, or a body changed since it was signed, is a
 * 400 PAYMENT_EVENT_REFUSED and changes nothing. Every genuine event is answered 200, duplicates and events sales does
 * not act on included, so the provider stops sending it.
 */
export function paymentEventsRouter({ provider, handlePaymentEvent, counter, logger }: PaymentEventsRouterOptions) {
  const router = new Router();
  router.post('/api/payment-events', queryParameters(), async (ctx) => {
    const body = await rawBody(ctx);
    let event: PaymentEvent;
    try {
      event = provider.verifyWebhook(body, ctx.get('Stripe-Signature') || undefined);
    } catch (error) {
      if (error instanceof PaymentEventRefusedError) counter.count('refused', 'refused');
      throw error;
    }
    const { outcome, warning } = await handlePaymentEvent.execute(event);
    counter.count(event.kind === 'other' ? 'other' : event.kind, outcome);
    const orderId = event.kind === 'other' ? undefined : event.orderId;
    const fields = { eventId: event.eventId, type: typeOf(event), outcome, ...(orderId && { orderId }) };
    logWith(ctx, { event: 'payment event', ...fields });
    if (warning) logger.warn(warning, fields);
    ctx.status = 200;
    ctx.body = { received: true, outcome };
  });
  return router;
}
