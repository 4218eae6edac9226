import { decodeBody, field, isNumber, isString, optional, required } from '@platform/koa';
import { StockAdjustment, stockAdjustmentFields } from '@stock/domain';
import * as t from 'io-ts';

const StockAdjustmentBody = t.type({
  delta: required(field('Delta', isNumber, 'an integer', stockAdjustmentFields.delta)),
  reason: optional(field('Reason', isString, 'a string', stockAdjustmentFields.reason), undefined),
});

export function decodeStockAdjustmentBody(body: Record<string, unknown>): StockAdjustment {
  const { delta, reason } = decodeBody(StockAdjustmentBody, body, 'a stock adjustment');
  return StockAdjustment.create(reason === undefined ? { delta } : { delta, reason });
}
