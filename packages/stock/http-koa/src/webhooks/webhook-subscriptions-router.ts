import Router, { type RouterContext } from '@koa/router';
import {
  type AccessControl,
  decodeInteger,
  jsonObjectBody,
  problemsFor,
  queryParameters,
  sendProblem,
} from '@platform/http';
import type { Context, Next } from 'koa';
import { webhookIdOf } from '@stock/domain';
import type { AttemptRecord, SubscriptionRecord } from '@stock/domain';
import type { SubscriptionWithSecret, WebhookErrorCode, WebhookSubscriptions } from '@stock/application';
import { decodeReplayBody, decodeSubscriptionBody } from './subscription-codec';

const BODY_LIMIT = '64kb';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DEFAULT_ATTEMPTS = 100;
const MAX_ATTEMPTS = 1000;

/** The subscription API's own table from error codes to statuses. */
export const WEBHOOK_STATUS_BY_CODE: Readonly<Record<WebhookErrorCode, number>> = {
  VALIDATION_FAILED: 400,
  WEBHOOK_SUBSCRIPTION_NOT_FOUND: 404,
};

const toProblem = problemsFor(WEBHOOK_STATUS_BY_CODE);

/** The router's errors as problem+json, whatever table the app it is mounted on has for its own. */
async function webhookProblems(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (error) {
    const problem = toProblem(error);
    if (!problem) throw error;
    sendProblem(ctx, problem);
  }
}

const iso = (epochMs: number | null) => (epochMs === null ? null : new Date(epochMs).toISOString());

/** A subscription as the API shows it: never its secret. */
export function subscriptionJson(s: SubscriptionRecord) {
  return {
    id: s.id,
    url: s.url,
    events: s.events,
    description: s.description,
    createdAt: iso(s.createdAt),
    enabled: s.disabledAt === null,
    disabledAt: iso(s.disabledAt),
  };
}

const withSecret = ({ subscription, secret }: SubscriptionWithSecret) => ({
  ...subscriptionJson(subscription),
  secret,
});

function attemptJson(a: AttemptRecord) {
  return {
    deliveryId: a.deliveryId,
    eventId: a.eventId,
    type: a.eventType,
    webhookId: webhookIdOf(a.eventId),
    attemptedAt: iso(a.attemptedAt),
    statusCode: a.statusCode,
    durationMs: a.durationMs,
    error: a.error,
  };
}

/** A path id that is no UUID names no subscription: a 404 like any unknown one. */
function subscriptionId(ctx: Context): string {
  const id = String((ctx.params as RouterContext['params']).id).toLowerCase();
  return UUID.test(id) ? id : '00000000-0000-0000-0000-000000000000';
}

export interface WebhookSubscriptionsRouterOptions {
  readonly subscriptions: WebhookSubscriptions;
  readonly access: AccessControl;
  /** The scope every operation needs (the service's contract names it: webhooks:manage). */
  readonly scope: string;
  readonly prefix?: string;
}

/**
 * /api/webhook-subscriptions: create (the secret is in that answer only), list, read, delete, rotate the secret,
 * list delivery attempts, replay. Every operation needs the one scope handed in.
 */
export function webhookSubscriptionsRouter({
  subscriptions,
  access,
  scope,
  prefix = '/api/webhook-subscriptions',
}: WebhookSubscriptionsRouterOptions): Router {
  const router = new Router({ prefix });
  const manage = access.require(scope);
  router.use(webhookProblems, access.authenticate);
  const jsonBody = jsonObjectBody(BODY_LIMIT);
  const noQuery = queryParameters();

  router.post('/', manage, noQuery, jsonBody, async (ctx) => {
    const created = await subscriptions.create(decodeSubscriptionBody(ctx.request.body as Record<string, unknown>));
    ctx.status = 201;
    ctx.set('Location', `${prefix}/${created.subscription.id}`);
    ctx.body = withSecret(created);
  });

  router.get('/', manage, noQuery, async (ctx) => {
    ctx.body = (await subscriptions.list()).map(subscriptionJson);
  });

  router.get('/:id', manage, noQuery, async (ctx) => {
    ctx.body = subscriptionJson(await subscriptions.get(subscriptionId(ctx)));
  });

  router.delete('/:id', manage, noQuery, async (ctx) => {
    await subscriptions.remove(subscriptionId(ctx));
    ctx.status = 204;
  });

  router.post('/:id/rotate-secret', manage, noQuery, async (ctx) => {
    ctx.body = withSecret(await subscriptions.rotateSecret(subscriptionId(ctx)));
  });

  router.get('/:id/deliveries', manage, queryParameters('limit'), async (ctx) => {
    const limit =
      ctx.query.limit === undefined ? DEFAULT_ATTEMPTS : decodeInteger('limit', ctx.query.limit, 1, MAX_ATTEMPTS);
    ctx.body = (await subscriptions.attempts(subscriptionId(ctx), limit)).map(attemptJson);
  });

  router.post('/:id/replay', manage, noQuery, jsonBody, async (ctx) => {
    const from = decodeReplayBody(ctx.request.body as Record<string, unknown>);
    ctx.status = 202;
    ctx.body = { queued: await subscriptions.replay(subscriptionId(ctx), from) };
  });

  return router;
}
