import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { timingSafeEqual } from 'node:crypto';
import { stripeId } from '../ledger/ids';
import { EVENT_TYPES, type PaymentLedger } from '../ledger/payment-ledger';
import { StripeError } from '../stripe-error';
import type { WebhookEndpoints } from '../webhooks/webhook-endpoints';
import { type FormParams, formText, parseForm } from './form-body';
import { type Answer, IdempotencyKeys } from './idempotency-keys';
import {
  currency,
  integer,
  metadata,
  oneOf,
  optional,
  type Param,
  type ParamsOf,
  readParams,
  required,
  text,
  textList,
} from './params';

export interface StripeApiOptions {
  readonly apiKey: string;
  readonly apiVersion: string;
  readonly ledger: PaymentLedger;
  readonly endpoints: WebhookEndpoints;
  readonly idempotencyKeys?: IdempotencyKeys;
}

/** Stripe's bounds on a charge's amount, in minor units, whatever the currency (a simplification). */
const MIN_AMOUNT = 50;
const MAX_AMOUNT = 99_999_999;

const CREATE_INTENT = {
  amount: required(integer),
  currency: required(currency),
  capture_method: optional(oneOf(['automatic', 'automatic_async', 'manual'])),
  description: optional(text),
  metadata: optional(metadata),
  payment_method_types: optional(textList),
};
const CONFIRM_INTENT = { payment_method: required(text), return_url: optional(text) };
const CAPTURE_INTENT = { amount_to_capture: optional(integer) };
const CANCEL_INTENT = {
  cancellation_reason: optional(oneOf(['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'])),
};
const CREATE_REFUND = {
  payment_intent: required(text),
  amount: optional(integer),
  reason: optional(oneOf(['duplicate', 'fraudulent', 'requested_by_customer'])),
  metadata: optional(metadata),
};
const CREATE_ENDPOINT = {
  url: required(text),
  enabled_events: required(textList),
  description: optional(text),
  metadata: optional(metadata),
  api_version: optional(text),
};

function unauthorised(message: string): StripeError {
  return new StripeError(401, { type: 'invalid_request_error', message });
}

/** Whether two strings are equal, in time that does not say how much of them matched. */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Bearer, as the SDKs send it, or Basic with the key as the user name, as curl -u sends it. */
function keyOf(authorization: string): string | undefined {
  const [scheme, credentials = ''] = authorization.trim().split(/\s+/, 2);
  if (/^bearer$/i.test(scheme ?? '')) return credentials;
  if (/^basic$/i.test(scheme ?? '')) return Buffer.from(credentials, 'base64').toString('utf8').split(':')[0];
  return undefined;
}

/** Stripe's 401 for a request without the provider's secret key, the key masked as Stripe masks it. */
function checkApiKey(ctx: Context, apiKey: string): void {
  const given = keyOf(ctx.get('authorization'));
  if (!given)
    throw unauthorised(
      "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
    );
  if (!sameSecret(given, apiKey))
    throw unauthorised(`Invalid API Key provided: ${given.slice(0, 8)}${'*'.repeat(4)}${given.slice(-4)}`);
}

/**
 * Everything under /v1 answers as Stripe does: the secret key checked first,
 * a Request-Id on every answer, errors as `{ "error": { type, code, message,
 * param } }` with Stripe's status, and an unknown path or method as Stripe's
 * 404. Anything else thrown is a bug: it goes on to the house's problem
 * middleware, logged once, a 500.
 */
function stripeAnswers(apiKey: string, apiVersion: string, routes: Middleware): Middleware {
  return async function stripeAnswers(ctx: Context, next: Next) {
    if (!ctx.path.startsWith('/v1/')) return void (await next());
    ctx.set('Request-Id', stripeId('req'));
    ctx.set('Stripe-Version', apiVersion);
    try {
      checkApiKey(ctx, apiKey);
      await routes(ctx, async () => {});
      if (ctx.status === 404 && ctx.body === undefined)
        throw new StripeError(404, {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${ctx.method}: ${ctx.path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
        });
    } catch (error) {
      if (!(error instanceof StripeError)) throw error;
      if (error.status === 401) ctx.set('WWW-Authenticate', 'Bearer realm="Stripe"');
      ctx.status = error.status;
      ctx.body = { error: error.body };
    }
  };
}

/** The request's parameters: the query of a GET or DELETE, the form body of a POST. */
async function paramsOf(ctx: Context): Promise<FormParams> {
  if (ctx.method !== 'POST') return parseForm(ctx.querystring);
  const type = ctx.get('content-type').split(';')[0]!.trim().toLowerCase();
  const body = await formText(ctx.req);
  if (body !== '' && type !== 'application/x-www-form-urlencoded')
    throw new StripeError(400, {
      type: 'invalid_request_error',
      message: `Invalid request: the body must be application/x-www-form-urlencoded, not ${type || 'untyped'}.`,
    });
  return parseForm(body);
}

/** An operation's outcome as an answer: the object, or the Stripe error it was refused with. */
function outcome(run: () => unknown): Answer {
  try {
    return { status: 200, body: run() };
  } catch (error) {
    if (error instanceof StripeError) return { status: error.status, body: { error: error.body } };
    throw error;
  }
}

/**
 * The subset of Stripe's v1 API the Stripe adapter uses, over the ledger and
 * the webhook endpoints: PaymentIntents (create, retrieve, confirm, capture,
 * cancel), Refunds (create, retrieve), webhook endpoints (create, retrieve).
 * Parameters are read before anything runs, so a refused one keeps no
 * idempotent answer, as with Stripe.
 */
export function stripeApi({ apiKey, apiVersion, ledger, endpoints, idempotencyKeys }: StripeApiOptions): Middleware {
  const keys = idempotencyKeys ?? new IdempotencyKeys();
  const router = new Router({ prefix: '/v1' });

  /** A route reading `spec` and, once it is valid, running what `prepare` answers. */
  const route =
    <Spec extends Record<string, Param<unknown>>>(
      spec: Spec,
      prepare: (params: ParamsOf<Spec>, id: string) => () => unknown,
    ) =>
    async (ctx: Context) => {
      const params = await paramsOf(ctx);
      const run = prepare(readParams(params, spec), (ctx.params as { id?: string }).id ?? '');
      const key = ctx.method === 'POST' ? ctx.get('idempotency-key') : '';
      if (key.length > 255)
        throw new StripeError(400, {
          type: 'invalid_request_error',
          message: 'Idempotency keys can be no longer than 255 characters.',
        });
      const answer = key
        ? keys.answer(key, { method: ctx.method, path: ctx.path, params }, () => outcome(run))
        : { ...outcome(run), replayed: false };
      if (key) ctx.set('Idempotency-Key', key);
      if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
      ctx.status = answer.status;
      ctx.body = answer.body;
    };

  router.post(
    '/payment_intents',
    route(CREATE_INTENT, (p) => {
      if (p.amount < MIN_AMOUNT)
        throw new StripeError(400, {
          type: 'invalid_request_error',
          code: 'amount_too_small',
          param: 'amount',
          message: `Amount must be at least ${MIN_AMOUNT} in the currency's smallest unit.`,
        });
      if (p.amount > MAX_AMOUNT)
        throw new StripeError(400, {
          type: 'invalid_request_error',
          code: 'amount_too_large',
          param: 'amount',
          message: `Amount must be no more than ${MAX_AMOUNT} in the currency's smallest unit.`,
        });
      return () =>
        ledger.createIntent({
          amount: p.amount,
          currency: p.currency,
          captureMethod: p.capture_method ?? 'automatic_async',
          metadata: p.metadata ?? {},
          description: p.description ?? null,
        });
    }),
  );
  router.get(
    '/payment_intents/:id',
    route({ client_secret: optional(text) }, (_, id) => () => ledger.retrieveIntent(id)),
  );
  router.post(
    '/payment_intents/:id/confirm',
    route(CONFIRM_INTENT, (p, id) => () => ledger.confirmIntent(id, p.payment_method)),
  );
  router.post(
    '/payment_intents/:id/capture',
    route(CAPTURE_INTENT, (p, id) => () => ledger.captureIntent(id, p.amount_to_capture)),
  );
  router.post(
    '/payment_intents/:id/cancel',
    route(CANCEL_INTENT, (p, id) => () => ledger.cancelIntent(id, p.cancellation_reason ?? null)),
  );
  router.post(
    '/refunds',
    route(
      CREATE_REFUND,
      (p) => () =>
        ledger.createRefund({
          intentId: p.payment_intent,
          amount: p.amount,
          reason: p.reason ?? null,
          metadata: p.metadata ?? {},
        }),
    ),
  );
  router.get(
    '/refunds/:id',
    route({}, (_, id) => () => ledger.retrieveRefund(id)),
  );
  router.post(
    '/webhook_endpoints',
    route(CREATE_ENDPOINT, (p) => {
      const known = new Set<string>(['*', ...EVENT_TYPES]);
      const unknown = p.enabled_events.find((type) => !known.has(type));
      if (unknown !== undefined)
        throw new StripeError(400, {
          type: 'invalid_request_error',
          param: 'enabled_events',
          message: `Invalid enabled_events: ${unknown} is not an event this provider sends (it sends ${EVENT_TYPES.join(', ')}).`,
        });
      if (!URL.canParse(p.url) || !/^https?:$/.test(new URL(p.url).protocol))
        throw new StripeError(400, { type: 'invalid_request_error', param: 'url', message: `Invalid URL: ${p.url}` });
      return () =>
        endpoints.create({
          url: p.url,
          enabledEvents: p.enabled_events,
          description: p.description ?? null,
          metadata: p.metadata ?? {},
        });
    }),
  );
  router.get(
    '/webhook_endpoints/:id',
    route({}, (_, id) => () => endpoints.retrieve(id)),
  );
  return stripeAnswers(apiKey, apiVersion, router.routes() as Middleware);
}
