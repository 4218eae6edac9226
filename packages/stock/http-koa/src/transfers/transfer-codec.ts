import { decodeBody, field, isNumber, isString, required } from '@platform/http';
import { TransferRequest } from '@stock/domain';
import * as t from 'io-ts';

// The ranges are TransferRequest's to check, so that every bad field is named in one answer.
const integer = (value: number) => value;
const text = (value: string) => value;

const TransferBody = t.type({
  productId: required(field('ProductId', isNumber, 'an integer', integer)),
  fromLocationId: required(field('FromLocationId', isNumber, 'an integer', integer)),
  toLocationId: required(field('ToLocationId', isNumber, 'an integer', integer)),
  quantity: required(field('Quantity', isNumber, 'an integer', integer)),
  reference: required(field('Reference', isString, 'a string', text)),
});

/** Decodes a parsed JSON object into a transfer request, or throws one ValidationError naming every bad field. */
export function decodeTransferBody(body: Record<string, unknown>): TransferRequest {
  return TransferRequest.create(decodeBody(TransferBody, body, 'a stock transfer'));
}
