import type { RouterContext } from '@koa/router';
import { Invalid, ValidationError } from '@platform/kernel';
import { singleQueryValue } from '@platform/http';
import { fulfilmentFields } from '@stock/domain';
import type { Context } from 'koa';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The path's id of a shipment or a return (`noun`): a UUID, in any case. */
export function recordId(ctx: Context, noun: string): string {
  const id = String((ctx.params as RouterContext['params']).id).toLowerCase();
  if (!UUID.test(id)) throw new ValidationError({ id: [`must be ${noun} id (a UUID)`] });
  return id;
}

/** `?orderId=`, which a listing needs: the order whose shipments or returns to list. */
export function orderIdQuery(ctx: Context): string {
  const value = singleQueryValue(ctx, 'orderId');
  const orderId = value === undefined ? new Invalid('is required') : fulfilmentFields.orderId(value);
  if (orderId instanceof Invalid) throw new ValidationError({ orderId: [orderId.message] });
  return orderId;
}
