import { decodeBody, field, isNumber, isString, optional, required } from '@platform/http';
import { StockAdjustment, stockAdjustmentFields } from '@stock/domain';
import * as t from 'io-ts';

const StockAdjustmentBody = t.type({
  delta: required(field('Delta', isNumber, 'an integer', stockAdjustmentFields.delta)),
  reason: optional(field('Reason', isString, 'a string', stockAdjustmentFields.reason), undefined),
  /** Absent: the default location, where a client that knows nothing of locations keeps its stock. */
  locationId: optional(field('LocationId', isNumber, 'an integer', stockAdjustmentFields.locationId), undefined),
});

export function decodeStockAdjustmentBody(body: Record<string, unknown>): StockAdjustment {
  const { delta, reason, locationId } = decodeBody(StockAdjustmentBody, body, 'a stock adjustment');
  return StockAdjustment.create({
    delta,
    ...(reason !== undefined && { reason }),
    ...(locationId !== undefined && { locationId }),
  });
}
