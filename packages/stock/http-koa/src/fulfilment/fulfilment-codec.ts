import { type FieldErrors, ValidationError } from '@platform/kernel';
import { decodeBody, field, isNumber, isString, optional, required } from '@platform/http';
import { type ReturnDisposition, ReturnRequest, ShipmentRequest, type ShipmentRequestLine } from '@stock/domain';
import * as t from 'io-ts';

// The ranges and the rules are the requests' to check (ShipmentRequest, ReturnRequest), so every bad field is named
// in one answer; these only say what type each field is.
const integer = (value: number) => value;
const text = (value: string) => value;
const isArray = (u: unknown): u is unknown[] => Array.isArray(u);
const lines = required(field('Lines', isArray, 'an array of lines', (value: unknown[]) => value));

const ShipmentLineBody = t.type({
  productId: required(field('ProductId', isNumber, 'an integer', integer)),
  quantity: required(field('Quantity', isNumber, 'an integer', integer)),
  /** Ship from this location; absent: from the order's allocations of the product, in their order. */
  locationId: optional(field('LocationId', isNumber, 'an integer', integer), undefined),
});

const ShipmentBody = t.type({
  orderId: required(field('OrderId', isString, 'a string', text)),
  lines,
  carrier: optional(field('Carrier', isString, 'a string', text), undefined),
  trackingNumber: optional(field('TrackingNumber', isString, 'a string', text), undefined),
});

const ReturnLineBody = t.type({
  productId: required(field('ProductId', isNumber, 'an integer', integer)),
  quantity: required(field('Quantity', isNumber, 'an integer', integer)),
  locationId: required(field('LocationId', isNumber, 'an integer', integer)),
  disposition: required(field('Disposition', isString, 'a string', (value: string) => value as ReturnDisposition)),
});

const ReturnBody = t.type({
  orderId: required(field('OrderId', isString, 'a string', text)),
  lines,
  reason: optional(field('Reason', isString, 'a string', text), undefined),
});

/** Each line decoded by `codec`, every bad one named by its index (`lines[2].quantity`), in one ValidationError. */
function decodeLines<P extends t.Props>(lines: unknown[], codec: t.TypeC<P>, noun: string): t.TypeOf<t.TypeC<P>>[] {
  const errors: FieldErrors = {};
  const decoded: t.TypeOf<t.TypeC<P>>[] = [];
  lines.forEach((line, index) => {
    if (typeof line !== 'object' || line === null || Array.isArray(line)) {
      errors[`lines[${index}]`] = [`must be ${noun}, an object`];
      return;
    }
    try {
      decoded.push(decodeBody(codec, line as Record<string, unknown>, noun));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      for (const [name, messages] of Object.entries(error.errors)) errors[`lines[${index}].${name}`] = messages;
    }
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return decoded;
}

/** `{ orderId, lines: [{ productId, quantity, locationId? }], carrier?, trackingNumber? }`, unknown ones refused. */
export function decodeShipmentBody(body: Record<string, unknown>): ShipmentRequest {
  const { orderId, lines, carrier, trackingNumber } = decodeBody(ShipmentBody, body, 'a shipment');
  const requested = decodeLines(lines, ShipmentLineBody, 'a shipment line').map(
    ({ locationId, ...line }): ShipmentRequestLine => ({ ...line, ...(locationId !== undefined && { locationId }) }),
  );
  return ShipmentRequest.create({ orderId, lines: requested, carrier, trackingNumber });
}

/** `{ orderId, lines: [{ productId, quantity, locationId, disposition }], reason? }`, unknown properties refused. */
export function decodeReturnBody(body: Record<string, unknown>): ReturnRequest {
  const { orderId, lines, reason } = decodeBody(ReturnBody, body, 'a return');
  return ReturnRequest.create({ orderId, lines: decodeLines(lines, ReturnLineBody, 'a return line'), reason });
}
