import { type StockAdjustment, stockAdjustmentRules } from '@stock/domain';
import * as t from 'io-ts';
import { checkedBy, decodeBody, field, isNumber, isString, optional, required } from './body-codec';

const StockAdjustmentBody = t.type({
  delta: required(field<number, number>('Delta', isNumber, 'an integer', checkedBy(stockAdjustmentRules.delta))),
  reason: optional(field<string, string>('Reason', isString, 'a string', checkedBy(stockAdjustmentRules.reason)), undefined),
});

export function decodeStockAdjustmentBody(body: Record<string, unknown>): StockAdjustment {
  const { delta, reason } = decodeBody(StockAdjustmentBody, body, 'a stock adjustment');
  return reason === undefined ? { delta } : { delta, reason };
}
