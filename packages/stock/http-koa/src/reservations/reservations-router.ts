import { Scopes } from '@commerce/contracts';
import Router, { type RouterContext } from '@koa/router';
import { ValidationError } from '@platform/kernel';
import {
  type AccessControl,
  idempotencyKeyOf,
  jsonObjectBody,
  logWith,
  markReplayed,
  queryParameters,
  requestIdOf,
} from '@platform/http';
import type { CommitReservation, GetReservation, ReleaseReservation, ReserveStock } from '@stock/application';
import type { Reservation } from '@stock/domain';
import type { Context } from 'koa';
import { callerOf } from '../caller';
import { reservationJson } from './reservation-json';
import { decodeReservationBody } from './reservation-codec';

export interface ReservationUseCases {
  readonly reserveStock: ReserveStock;
  readonly getReservation: GetReservation;
  readonly commitReservation: CommitReservation;
  readonly releaseReservation: ReleaseReservation;
}

const BODY_LIMIT = '64kb';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function reservationId(ctx: Context): string {
  const id = String((ctx.params as RouterContext['params']).id).toLowerCase();
  if (!UUID.test(id)) throw new ValidationError({ id: ['must be a reservation id (a UUID)'] });
  return id;
}

function answer(ctx: Context, status: number, reservation: Reservation): void {
  ctx.status = status;
  ctx.body = reservationJson(reservation);
}

/**
 * POST /api/reservations, GET /api/reservations/{id}, and its commit and
 * release. Holding, committing and releasing stock need stock:reserve; reading
 * a reservation stock:read or stock:reserve. A hold is its maker's: any other
 * caller, and any hold of an order, is a 404 (the use cases decide).
 */
export function reservationsRouter({
  useCases,
  access,
}: {
  useCases: ReservationUseCases;
  access: AccessControl;
}): Router {
  const { reserveStock, getReservation, commitReservation, releaseReservation } = useCases;
  const router = new Router({ prefix: '/api/reservations' });
  const reserve = access.require(Scopes.stock.reserve);
  const read = access.require(Scopes.stock.read, Scopes.stock.reserve);
  router.use(access.authenticate);
  const jsonBody = jsonObjectBody(BODY_LIMIT);
  const noQuery = queryParameters();

  router.post('/', reserve, noQuery, jsonBody, async (ctx) => {
    const request = decodeReservationBody(ctx.request.body as Record<string, unknown>);
    // Without allowBackorder the payload is fingerprinted as before it existed: a key recorded then still matches.
    const { allowBackorder, ...withoutBackorder } = request;
    const idempotency = idempotencyKeyOf(ctx, 'reserve-stock', allowBackorder ? request : withoutBackorder);
    const { value, replayed } = await reserveStock.execute(callerOf(ctx), request, {
      ...(idempotency && { idempotency }),
      requestId: requestIdOf(ctx),
    });
    if (value.created && !replayed)
      logWith(ctx, {
        event: 'stock reserved',
        reservationId: value.reservation.id,
        reference: value.reservation.reference,
      });
    markReplayed(ctx, replayed);
    ctx.set('Location', `/api/reservations/${value.reservation.id}`);
    // A reference that already had one of this caller's reservations answers it: 200, not a second 201.
    answer(ctx, value.created ? 201 : 200, value.reservation);
  });

  router.get('/:id', read, noQuery, async (ctx) => {
    answer(ctx, 200, await getReservation.execute(reservationId(ctx), callerOf(ctx)));
  });

  router.post('/:id/commit', reserve, noQuery, async (ctx) => {
    answer(
      ctx,
      200,
      await commitReservation.execute(reservationId(ctx), callerOf(ctx), { requestId: requestIdOf(ctx) }),
    );
  });

  router.post('/:id/release', reserve, noQuery, async (ctx) => {
    answer(
      ctx,
      200,
      await releaseReservation.execute(reservationId(ctx), callerOf(ctx), { requestId: requestIdOf(ctx) }),
    );
  });

  return router;
}
