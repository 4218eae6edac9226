import { Scopes } from '@commerce/contracts';
import Router from '@koa/router';
import {
  type AccessControl,
  idempotencyKeyOf,
  jsonObjectBody,
  logWith,
  markReplayed,
  queryParameters,
  requestIdOf,
} from '@platform/http';
import type { GetReturn, ListReturns, ReceiveReturn } from '@stock/application';
import type { Context } from 'koa';
import { callerOf } from '../caller';
import { decodeReturnBody } from './fulfilment-codec';
import { returnJson } from './fulfilment-json';
import { orderIdQuery, recordId } from './fulfilment-params';

export interface ReturnUseCases {
  readonly receiveReturn: ReceiveReturn;
  readonly getReturn: GetReturn;
  readonly listReturns: ListReturns;
}

const BODY_LIMIT = '64kb';

type Handler = (ctx: Context) => Promise<void>;

/** POST /: receives shipped units of an order, each line with its disposition; 201 with the return and its Location. */
function receiveReturnHandler({ receiveReturn }: ReturnUseCases): Handler {
  return async function receiveReturnRoute(ctx) {
    const request = decodeReturnBody(ctx.request.body as Record<string, unknown>);
    const idempotency = idempotencyKeyOf(ctx, 'receive-return', request);
    const { value, replayed } = await receiveReturn.execute(request, {
      ...(idempotency && { idempotency }),
      requestId: requestIdOf(ctx),
      caller: callerOf(ctx),
    });
    if (!replayed) logWith(ctx, { event: 'return received', returnId: value.id, orderId: value.orderId });
    markReplayed(ctx, replayed);
    ctx.status = 201;
    ctx.set('Location', `/api/returns/${value.id}`);
    ctx.body = returnJson(value);
  };
}

function getReturnHandler({ getReturn }: ReturnUseCases): Handler {
  return async function getReturnRoute(ctx) {
    ctx.body = returnJson(await getReturn.execute(recordId(ctx, 'a return')));
  };
}

/** GET /?orderId=: an order's returns, oldest first. */
function listReturnsHandler({ listReturns }: ReturnUseCases): Handler {
  return async function listReturnsRoute(ctx) {
    ctx.body = (await listReturns.execute(orderIdQuery(ctx))).map(returnJson);
  };
}

/**
 * /api/returns: shipped units of an order coming back, each with its disposition. Receiving takes stock:fulfil;
 * reading stock:read or stock:fulfil.
 */
export function returnsRouter({ useCases, access }: { useCases: ReturnUseCases; access: AccessControl }): Router {
  const router = new Router({ prefix: '/api/returns' });
  const fulfil = access.require(Scopes.stock.fulfil);
  const read = access.require(Scopes.stock.read, Scopes.stock.fulfil);
  router.use(access.authenticate);
  router.post('/', fulfil, queryParameters(), jsonObjectBody(BODY_LIMIT), receiveReturnHandler(useCases));
  router.get('/', read, queryParameters('orderId'), listReturnsHandler(useCases));
  router.get('/:id', read, queryParameters(), getReturnHandler(useCases));
  return router;
}
