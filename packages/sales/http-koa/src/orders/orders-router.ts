import { Scopes, STAFF_CLIENT_ID } from '@commerce/contracts';
import Router, { type RouterContext } from '@koa/router';
import { ValidationError } from '@platform/kernel';
import {
  type AccessControl,
  decodeInteger,
  idempotencyKeyOf,
  jsonObjectBody,
  logWith,
  markReplayed,
  principalOf,
  queryParameters,
  singleQueryValue,
} from '@platform/http';
import type { CancelOrder, GetOrder, ListOrders, PlaceOrder, RequestRefund } from '@sales/application';
import type { Order, Viewer } from '@sales/domain';
import type { Context } from 'koa';
import { decodeRefundBody } from '../payments/refund-codec';
import { type OrderAudience, orderJson, refundJson } from './order-json';
import { decodeOrderBody } from './order-codec';

export interface OrderUseCases {
  readonly placeOrder: PlaceOrder;
  readonly getOrder: GetOrder;
  readonly listOrders: ListOrders;
  readonly cancelOrder: CancelOrder;
  readonly requestRefund: RequestRefund;
}

export interface OrdersRouterOptions {
  readonly useCases: OrderUseCases;
  readonly access: AccessControl;
}

/** A hundred lines of a few dozen bytes each fit many times over. */
const BODY_LIMIT = '64kb';
const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Who places orders when the service runs without tokens. */
const ANONYMOUS_BUYER = 'anonymous';

/**
 * The token's subject is the buyer; orders:admin acts on every order. An open service lets everyone act on every order.
 */
function viewerOf(ctx: Context): Viewer {
  const principal = principalOf(ctx);
  if (!principal || principal.scopes.includes(Scopes.sales.admin)) return { kind: 'admin' };
  return { kind: 'buyer', buyer: principal.subject };
}

/** Who reads: as viewerOf, but a member of staff (a back-office token) reads every order, as a clerk who ships them. */
function readerOf(ctx: Context): Viewer {
  return principalOf(ctx)?.clientId === STAFF_CLIENT_ID ? { kind: 'admin' } : viewerOf(ctx);
}

function buyerOf(ctx: Context): string {
  return principalOf(ctx)?.subject ?? ANONYMOUS_BUYER;
}

function uuidParameter(name: string, raw: unknown): string {
  const id = String(raw).toLowerCase();
  if (!UUID.test(id)) throw new ValidationError({ [name]: ['must be an order id (a UUID)'] });
  return id;
}

/**
 * The payment's client secret is the buyer's alone: with tokens on, only the token whose subject placed the order sees
 * it; without tokens, everyone does.
 */
function audienceOf(ctx: Context): OrderAudience {
  const principal = principalOf(ctx);
  return { seesClientSecret: (order) => !principal || principal.subject === order.buyer };
}

function answer(ctx: Context, status: number, order: Order): void {
  ctx.status = status;
  ctx.set('ETag', `"${order.version}"`);
  ctx.body = orderJson(order, audienceOf(ctx));
}

/** POST and GET /api/orders, GET /api/orders/{id}, its cancel (by its buyer) and its refunds (orders:refund). */
export function ordersRouter({ useCases, access }: OrdersRouterOptions): Router {
  const { placeOrder, getOrder, listOrders, cancelOrder, requestRefund } = useCases;
  const router = new Router({ prefix: '/api/orders' });
  const read = access.require(Scopes.sales.read, Scopes.sales.admin);
  const write = access.require(Scopes.sales.write, Scopes.sales.admin);
  // Money goes back on a merchant's word, for any order: neither a buyer nor orders:admin may give it.
  const refund = access.require(Scopes.sales.refund);
  const noQuery = queryParameters();
  const orderId = (ctx: Context) => uuidParameter('id', (ctx.params as RouterContext['params']).id);
  router.use(access.authenticate);

  router.post('/', write, noQuery, jsonObjectBody(BODY_LIMIT), async (ctx) => {
    const request = decodeOrderBody(ctx.request.body as Record<string, unknown>);
    const buyer = buyerOf(ctx);
    // One buyer's key never answers another buyer's order: idempotencyKeyOf scopes it by the token's subject, the
    // buyer.
    const idempotency = idempotencyKeyOf(ctx, 'place-order', request);
    const { value: order, replayed } = await placeOrder.execute(buyer, request, {
      ...(idempotency && { idempotency }),
    });
    if (!replayed) logWith(ctx, { event: 'order placed', orderId: order.id, lines: order.lines.length });
    markReplayed(ctx, replayed);
    ctx.set('Location', `/api/orders/${order.id}`);
    // Accepted: stock decides whether the lines are held; the order's status says when it has.
    answer(ctx, 202, order);
  });

  router.get('/', read, queryParameters('limit', 'after'), async (ctx) => {
    const limit = singleQueryValue(ctx, 'limit');
    const after = singleQueryValue(ctx, 'after');
    const query = {
      limit: limit === undefined ? DEFAULT_PAGE_SIZE : decodeInteger('limit', limit, 1, MAX_PAGE_SIZE),
      ...(after !== undefined && { after: uuidParameter('after', after) }),
    };
    const page = await listOrders.execute(readerOf(ctx), query);
    if (page.nextAfter !== undefined)
      ctx.set('Link', `</api/orders?limit=${query.limit}&after=${page.nextAfter}>; rel="next"`);
    const audience = audienceOf(ctx);
    ctx.body = page.items.map((order) => orderJson(order, audience));
  });

  router.get('/:id', read, noQuery, async (ctx) => {
    const order = await getOrder.execute(orderId(ctx), readerOf(ctx));
    const etag = `"${order.version}"`;
    if (
      ctx
        .get('If-None-Match')
        .split(',')
        .some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')
    ) {
      ctx.status = 304;
      ctx.set('ETag', etag);
      return;
    }
    answer(ctx, 200, order);
  });

  router.post('/:id/cancel', write, noQuery, async (ctx) => {
    const order = await cancelOrder.execute(orderId(ctx), viewerOf(ctx));
    logWith(ctx, { event: 'order cancelled', orderId: order.id });
    answer(ctx, 200, order);
  });

  router.post('/:id/refunds', refund, noQuery, jsonObjectBody(BODY_LIMIT), async (ctx) => {
    const id = orderId(ctx);
    const { amount, reason } = decodeRefundBody(ctx.request.body as Record<string, unknown>);
    const idempotency = idempotencyKeyOf(ctx, 'refund', { amount: amount.toString(), reason });
    if (!idempotency)
      throw new ValidationError({ 'Idempotency-Key': ['is required: a refund must never be made twice'] });
    const { value: made, replayed } = await requestRefund.execute(id, amount, reason, idempotency);
    if (!replayed) logWith(ctx, { event: 'refund requested', orderId: id, refundId: made.id, amount: made.amount });
    markReplayed(ctx, replayed);
    // Accepted: the provider gives the money back; the order's refunds say when it has.
    ctx.status = 202;
    ctx.set('Location', `/api/orders/${id}`);
    ctx.body = refundJson(made);
  });

  return router;
}
