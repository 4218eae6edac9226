import { type FieldErrors, ValidationError } from '@platform/kernel';
import { decodeBody, field, isNumber, required } from '@platform/http';
import { type OrderLineRequest, OrderRequest } from '@sales/domain';
import * as t from 'io-ts';

const asIs = (value: number) => value;

const LineBody = t.type({
  productId: required(field('ProductId', isNumber, 'an integer', asIs)),
  quantity: required(field('Quantity', isNumber, 'an integer', asIs)),
});

const OrderBody = t.type({
  lines: required(
    field(
      'Lines',
      (u: unknown): u is unknown[] => Array.isArray(u),
      'an array of lines',
      (lines: unknown[]) => lines,
    ),
  ),
});

/** Each line as { productId, quantity }, every bad one named by its index (lines[2].quantity). */
function decodeLines(lines: unknown[]): OrderLineRequest[] {
  const errors: FieldErrors = {};
  const decoded: OrderLineRequest[] = [];
  lines.forEach((line, index) => {
    if (typeof line !== 'object' || line === null || Array.isArray(line)) {
      errors[`lines[${index}]`] = ['must be an object with productId and quantity'];
      return;
    }
    try {
      decoded.push(decodeBody(LineBody, line as Record<string, unknown>, 'an order line'));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      for (const [name, messages] of Object.entries(error.errors)) errors[`lines[${index}].${name}`] = messages;
    }
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return decoded;
}

/**
 * Decodes `{ "lines": [{ "productId", "quantity" }] }` into the domain's request (lines summed per product, in id
 * order), or throws one ValidationError.
 */
export function decodeOrderBody(body: Record<string, unknown>): OrderRequest {
  const { lines } = decodeBody(OrderBody, body, 'an order');
  return OrderRequest.create({ lines: decodeLines(lines) });
}
