import { decodeBody, field, isNumber, isString, optional, required } from '@platform/http';
import { StockAdjustment, stockAdjustmentFields, StockStateChange } from '@stock/domain';
import * as t from 'io-ts';

const fields = stockAdjustmentFields;
const reason = optional(field('Reason', isString, 'a string', fields.reason), undefined);
const reasonCode = optional(field('ReasonCode', isString, 'a string', fields.reasonCode), undefined);
const state = (name: string) => field(name, isString, 'a string', fields.state);

const StockAdjustmentBody = t.type({
  delta: required(field('Delta', isNumber, 'an integer', fields.delta)),
  reason,
  /** Absent: the default location, where a client that knows nothing of locations keeps its stock. */
  locationId: optional(field('LocationId', isNumber, 'an integer', fields.locationId), undefined),
  /** Absent: available. */
  state: optional(state('State'), undefined),
  reasonCode,
});

export function decodeStockAdjustmentBody(body: Record<string, unknown>): StockAdjustment {
  const { delta, locationId, ...rest } = decodeBody(StockAdjustmentBody, body, 'a stock adjustment');
  return StockAdjustment.create({
    delta,
    ...(locationId !== undefined && { locationId }),
    ...(rest.state !== undefined && { state: rest.state }),
    ...explained(rest),
  });
}

const StockStateChangeBody = t.type({
  locationId: required(field('LocationId', isNumber, 'an integer', fields.locationId)),
  quantity: required(field('Quantity', isNumber, 'an integer', fields.quantity)),
  from: required(state('From')),
  to: required(state('To')),
  reasonCode,
  reason,
});

export function decodeStockStateChangeBody(body: Record<string, unknown>): StockStateChange {
  const { locationId, quantity, from, to, ...rest } = decodeBody(StockStateChangeBody, body, 'a stock state change');
  return StockStateChange.create({ locationId, quantity, from, to, ...explained(rest) });
}

/** Why, as a body gave it: its reason code and its reason, each when present. */
function explained({ reasonCode, reason }: { reasonCode: string | undefined; reason: string | undefined }) {
  return { ...(reasonCode !== undefined && { reasonCode }), ...(reason !== undefined && { reason }) };
}
