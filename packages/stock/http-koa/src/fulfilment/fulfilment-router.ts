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
import type { OnceResult } from '@platform/kernel';
import type { WriteOptions } from '@stock/application';
import type { Context } from 'koa';
import { callerOf } from '../caller';
import { orderIdQuery, recordId } from './fulfilment-params';

/** A shipment or a return has at most 1000 lines: 64 KiB holds them, as every other body's limit. */
const BODY_LIMIT = '64kb';

/** What an order's shipments and its returns each are to the HTTP edge: one record kind under one path. */
export interface FulfilmentRecordKind<Request, Stored extends { readonly id: string; readonly orderId: string }> {
  /** `/api/shipments`. */
  readonly path: string;
  /** `a shipment`: names the record in a bad id's message. */
  readonly noun: string;
  /** The idempotency scope of the record's creation, e.g. `ship-order`. */
  readonly operation: string;
  /** The access line's event and the record's id field in it, e.g. `order shipped`, `shipmentId`. */
  readonly logged: { readonly event: string; readonly idField: string };
  readonly decode: (body: Record<string, unknown>) => Request;
  readonly json: (record: Stored) => object;
  readonly useCases: {
    readonly create: { execute(request: Request, options?: WriteOptions): Promise<OnceResult<Stored>> };
    readonly get: { execute(id: string): Promise<Stored> };
    readonly list: { execute(orderId: string): Promise<Stored[]> };
  };
}

/**
 * The router of a fulfilment record (shipments, returns): POST / records one (201 with its Location, replayed by
 * Idempotency-Key), GET /:id reads one, GET /?orderId= lists an order's, oldest first. Recording takes stock:fulfil;
 * reading stock:read or stock:fulfil.
 */
export function fulfilmentRouter<Request, Stored extends { readonly id: string; readonly orderId: string }>(
  kind: FulfilmentRecordKind<Request, Stored>,
  access: AccessControl,
): Router {
  const { path, noun, operation, logged, decode, json, useCases } = kind;
  const router = new Router({ prefix: path });
  const fulfil = access.require(Scopes.stock.fulfil);
  const read = access.require(Scopes.stock.read, Scopes.stock.fulfil);

  async function create(ctx: Context) {
    const request = decode(ctx.request.body as Record<string, unknown>);
    const idempotency = idempotencyKeyOf(ctx, operation, request);
    const { value, replayed } = await useCases.create.execute(request, {
      ...(idempotency && { idempotency }),
      requestId: requestIdOf(ctx),
      caller: callerOf(ctx),
    });
    if (!replayed) logWith(ctx, { event: logged.event, [logged.idField]: value.id, orderId: value.orderId });
    markReplayed(ctx, replayed);
    ctx.status = 201;
    ctx.set('Location', `${path}/${value.id}`);
    ctx.body = json(value);
  }

  router.use(access.authenticate);
  router.post('/', fulfil, queryParameters(), jsonObjectBody(BODY_LIMIT), create);
  router.get('/', read, queryParameters('orderId'), async (ctx) => {
    ctx.body = (await useCases.list.execute(orderIdQuery(ctx))).map(json);
  });
  router.get('/:id', read, queryParameters(), async (ctx) => {
    ctx.body = json(await useCases.get.execute(recordId(ctx, noun)));
  });
  return router;
}
