import { type FieldErrors, ValidationError } from '@platform/kernel';
import { decodeBody, field, isNumber, isString, optional, required } from '@platform/http';
import { type ReservationLine, ReservationRequest, reservationFields } from '@stock/domain';
import * as t from 'io-ts';

const integer = (value: number) => value;
const isBoolean = (u: unknown): u is boolean => typeof u === 'boolean';

const LineBody = t.type({
  productId: required(field('ProductId', isNumber, 'an integer', integer)),
  quantity: required(field('Quantity', isNumber, 'an integer', integer)),
  /** Hold only at this location; absent: allocated across locations by RESERVATION_ALLOCATION. */
  locationId: optional(field('LocationId', isNumber, 'an integer', integer), undefined),
});

const ReservationBody = t.type({
  reference: required(field('Reference', isString, 'a string', reservationFields.reference)),
  lines: required(
    field(
      'Lines',
      (u: unknown): u is unknown[] => Array.isArray(u),
      'an array of lines',
      (lines: unknown[]) => lines,
    ),
  ),
  ttlSeconds: optional(field('TtlSeconds', isNumber, 'an integer', reservationFields.ttlSeconds), undefined),
  allowBackorder: optional(
    field('AllowBackorder', isBoolean, 'true or false', (value: boolean) => value),
    false,
  ),
});

/** Each line as { productId, quantity, locationId? }, with every bad one named by its index (lines[2].quantity). */
function decodeLines(lines: unknown[]): ReservationLine[] {
  const errors: FieldErrors = {};
  const decoded: ReservationLine[] = [];
  lines.forEach((line, index) => {
    if (typeof line !== 'object' || line === null || Array.isArray(line)) {
      errors[`lines[${index}]`] = ['must be an object with productId and quantity'];
      return;
    }
    try {
      const { locationId, ...rest } = decodeBody(LineBody, line as Record<string, unknown>, 'a reservation line');
      decoded.push({ ...rest, ...(locationId !== undefined && { locationId }) });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      for (const [name, messages] of Object.entries(error.errors)) errors[`lines[${index}].${name}`] = messages;
    }
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return decoded;
}

/**
 * Decodes a reservation request body into the domain's request (lines summed per product, in id order), or throws one
 * ValidationError.
 */
export function decodeReservationBody(body: Record<string, unknown>): ReservationRequest {
  const { reference, lines, ttlSeconds, allowBackorder } = decodeBody(ReservationBody, body, 'a reservation');
  return ReservationRequest.create({
    reference,
    lines: decodeLines(lines),
    ...(ttlSeconds !== undefined && { ttlSeconds }),
    ...(allowBackorder && { allowBackorder }),
  });
}
