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
import type { GetShipment, ListShipments, ShipOrder } from '@stock/application';
import type { Context } from 'koa';
import { callerOf } from '../caller';
import { decodeShipmentBody } from './fulfilment-codec';
import { shipmentJson } from './fulfilment-json';
import { orderIdQuery, recordId } from './fulfilment-params';

export interface ShipmentUseCases {
  readonly shipOrder: ShipOrder;
  readonly getShipment: GetShipment;
  readonly listShipments: ListShipments;
}

/** A shipment has at most 1000 lines: 64 KiB holds them, as every other body's limit. */
const BODY_LIMIT = '64kb';

type Handler = (ctx: Context) => Promise<void>;

/** POST /: ships units an order committed; 201 with the shipment and its Location. */
function shipOrderHandler({ shipOrder }: ShipmentUseCases): Handler {
  return async function shipOrderRoute(ctx) {
    const request = decodeShipmentBody(ctx.request.body as Record<string, unknown>);
    const idempotency = idempotencyKeyOf(ctx, 'ship-order', request);
    const { value, replayed } = await shipOrder.execute(request, {
      ...(idempotency && { idempotency }),
      requestId: requestIdOf(ctx),
      caller: callerOf(ctx),
    });
    if (!replayed) logWith(ctx, { event: 'order shipped', shipmentId: value.id, orderId: value.orderId });
    markReplayed(ctx, replayed);
    ctx.status = 201;
    ctx.set('Location', `/api/shipments/${value.id}`);
    ctx.body = shipmentJson(value);
  };
}

function getShipmentHandler({ getShipment }: ShipmentUseCases): Handler {
  return async function getShipmentRoute(ctx) {
    ctx.body = shipmentJson(await getShipment.execute(recordId(ctx, 'a shipment')));
  };
}

/** GET /?orderId=: an order's shipments, oldest first. */
function listShipmentsHandler({ listShipments }: ShipmentUseCases): Handler {
  return async function listShipmentsRoute(ctx) {
    ctx.body = (await listShipments.execute(orderIdQuery(ctx))).map(shipmentJson);
  };
}

/**
 * /api/shipments: an order's committed units leaving the warehouse. Shipping takes stock:fulfil; reading stock:read
 * or stock:fulfil.
 */
export function shipmentsRouter({ useCases, access }: { useCases: ShipmentUseCases; access: AccessControl }): Router {
  const router = new Router({ prefix: '/api/shipments' });
  const fulfil = access.require(Scopes.stock.fulfil);
  const read = access.require(Scopes.stock.read, Scopes.stock.fulfil);
  router.use(access.authenticate);
  router.post('/', fulfil, queryParameters(), jsonObjectBody(BODY_LIMIT), shipOrderHandler(useCases));
  router.get('/', read, queryParameters('orderId'), listShipmentsHandler(useCases));
  router.get('/:id', read, queryParameters(), getShipmentHandler(useCases));
  return router;
}
