import { Scopes } from '@commerce/contracts';
import Router, { type RouterContext } from '@koa/router';
import { ValidationError } from '@platform/kernel';
import { type AccessControl, jsonObjectBody, logWith, queryParameters, requestIdOf } from '@platform/http';
import type { StockTransfers } from '@stock/application';
import type { StockTransfer } from '@stock/domain';
import type { Context } from 'koa';
import { callerOf } from '../caller';
import { transferJson } from './transfer-json';
import { decodeTransferBody } from './transfer-codec';
import { nextTransfersLink, TRANSFER_LIST_PARAMETERS, transferPageQuery } from './transfer-page-query';

export interface TransferUseCases {
  readonly stockTransfers: StockTransfers;
}

const BODY_LIMIT = '64kb';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Handler = (ctx: Context) => Promise<void>;

function transferId(ctx: Context): string {
  const id = String((ctx.params as RouterContext['params']).id).toLowerCase();
  if (!UUID.test(id)) throw new ValidationError({ id: ['must be a stock transfer id (a UUID)'] });
  return id;
}

function answer(ctx: Context, status: number, transfer: StockTransfer): void {
  ctx.status = status;
  ctx.body = transferJson(transfer);
}

/** POST /: sends a transfer; a reference already used answers its first transfer (200), as reservations do. */
function sendTransferHandler({ stockTransfers }: TransferUseCases): Handler {
  return async function sendTransfer(ctx) {
    const request = decodeTransferBody(ctx.request.body as Record<string, unknown>);
    const { value, replayed } = await stockTransfers.send(request, {
      requestId: requestIdOf(ctx),
      caller: callerOf(ctx),
    });
    if (!replayed) logWith(ctx, { event: 'stock transfer sent', transferId: value.id, reference: value.reference });
    ctx.set('Location', `/api/stock-transfers/${value.id}`);
    answer(ctx, replayed ? 200 : 201, value);
  };
}

/** GET /: a page of every transfer, in transit first, then newest first; `status` and `productId` filter it. */
function listTransfersHandler({ stockTransfers }: TransferUseCases): Handler {
  return async function listTransfers(ctx) {
    const query = transferPageQuery(ctx);
    const page = await stockTransfers.list(query);
    if (page.next) ctx.set('Link', nextTransfersLink(query, page.next));
    ctx.body = page.items.map(transferJson);
  };
}

function getTransferHandler({ stockTransfers }: TransferUseCases): Handler {
  return async function getTransfer(ctx) {
    answer(ctx, 200, await stockTransfers.find(transferId(ctx)));
  };
}

/** POST /:id/receive: the units are on hand at `to`; repeating it answers the transfer as it is. */
function receiveTransferHandler({ stockTransfers }: TransferUseCases): Handler {
  return async function receiveTransfer(ctx) {
    const options = { requestId: requestIdOf(ctx), caller: callerOf(ctx) };
    answer(ctx, 200, await stockTransfers.receive(transferId(ctx), options));
  };
}

/** POST /:id/cancel: the units are back on hand at `from`; repeating it answers the transfer as it is. */
function cancelTransferHandler({ stockTransfers }: TransferUseCases): Handler {
  return async function cancelTransfer(ctx) {
    const options = { requestId: requestIdOf(ctx), caller: callerOf(ctx) };
    answer(ctx, 200, await stockTransfers.cancel(transferId(ctx), options));
  };
}

/**
 * /api/stock-transfers: units of a product on their way between two
 * locations. Sending, receiving and cancelling move stock, stock:write;
 * reading or listing transfers takes stock:read (ADR 0015).
 */
export function stockTransfersRouter({
  useCases,
  access,
}: {
  useCases: TransferUseCases;
  access: AccessControl;
}): Router {
  const router = new Router({ prefix: '/api/stock-transfers' });
  const read = access.require(Scopes.stock.read);
  const write = access.require(Scopes.stock.write);
  const noQuery = queryParameters();
  router.use(access.authenticate);
  router.post('/', write, noQuery, jsonObjectBody(BODY_LIMIT), sendTransferHandler(useCases));
  router.get('/', read, queryParameters(...TRANSFER_LIST_PARAMETERS), listTransfersHandler(useCases));
  router.get('/:id', read, noQuery, getTransferHandler(useCases));
  router.post('/:id/receive', write, noQuery, receiveTransferHandler(useCases));
  router.post('/:id/cancel', write, noQuery, cancelTransferHandler(useCases));
  return router;
}
