import { decodeBody, field, isNumber, isString, required } from '@platform/http';
import { refundAmount, refundReason } from '@sales/domain';
import * as t from 'io-ts';

const RefundBody = t.type({
  amount: required(field('Amount', isNumber, 'a number', refundAmount)),
  reason: required(field('Reason', isString, 'a string', refundReason)),
});

/** `{ "amount", "reason" }` as the domain reads a refund, or one ValidationError naming every bad field. */
export function decodeRefundBody(body: Record<string, unknown>) {
  return decodeBody(RefundBody, body, 'a refund');
}
