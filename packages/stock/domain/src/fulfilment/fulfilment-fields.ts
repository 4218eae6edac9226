import { isProductId, LINE_MAX_QUANTITY } from '@commerce/shared-kernel';
import { type FieldErrors, INT32_MAX, Invalid } from '@platform/kernel';
import { isLocationId } from '../locations/location';
import { text } from '../products/product';

/** Units of one product at one location: a line of a shipment, or what an order can still ship there. */
export interface UnitsAt {
  readonly productId: number;
  readonly locationId: number;
  readonly quantity: number;
}

/**
 * A shipment or a return names at most this many lines: an order's lines spread over locations give no more (the
 * events' FULFILMENT_MAX_LINES).
 */
export const FULFILMENT_MAX_LINES = 1000;
/** The carrier and the tracking number of a shipment are at most this long. */
export const SHIPMENT_NOTE_MAX_LENGTH = 100;
export const RETURN_REASON_MAX_LENGTH = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The rules of the fields shipments and returns share, each answering the value to keep or why it is refused. */
export const fulfilmentFields = {
  /** The order's id as sales made it (a UUID), in lower case as its reservation's reference has it. */
  orderId: (value: string): string | Invalid => {
    const id = value.toLowerCase();
    return UUID.test(id) ? id : new Invalid('must be an order id (a UUID)');
  },
  productId: (value: number): number | Invalid =>
    isProductId(value) ? value : new Invalid(`must be an integer from 1 to ${INT32_MAX}`),
  locationId: (value: number): number | Invalid =>
    isLocationId(value) ? value : new Invalid(`must be an integer from 1 to ${INT32_MAX}`),
  /** At most an order line's: the events that tell a shipment or a return carry no more per line. */
  quantity: (value: number): number | Invalid =>
    Number.isInteger(value) && value >= 1 && value <= LINE_MAX_QUANTITY
      ? value
      : new Invalid(`must be an integer from 1 to ${LINE_MAX_QUANTITY}`),
  /** Optional free text (a carrier, a tracking number, a reason): trimmed and never blank; null when absent. */
  note: (max: number) => {
    const parse = text(max);
    return (value: string | null | undefined): string | null | Invalid => {
      if (value === null || value === undefined) return null;
      const trimmed = value.trim();
      return trimmed.length === 0 ? new Invalid('must not be blank (leave it out instead)') : parse(trimmed);
    };
  },
};

/** The fields' values, each refusal recorded in `errors` under its name (the values are then not to be used). */
export function collect<T extends object>(fields: { readonly [K in keyof T]: T[K] | Invalid }, errors: FieldErrors): T {
  for (const [name, value] of Object.entries(fields)) if (value instanceof Invalid) errors[name] = [value.message];
  return fields as T;
}

/**
 * A request's lines, each parsed by `parse` with its refusals named by index (`lines[2].quantity`): at least one, at
 * most FULFILMENT_MAX_LINES, and at most LINE_MAX_QUANTITY units of a product in all, since each line of the event
 * that tells the request carries no more.
 */
export function collectLines<In, Out extends { readonly productId: number; readonly quantity: number }>(
  lines: readonly In[],
  parse: (line: In) => { readonly [K in keyof Out]: Out[K] | Invalid },
  errors: FieldErrors,
): Out[] {
  if (lines.length === 0 || lines.length > FULFILMENT_MAX_LINES) {
    errors.lines = [`must hold 1 to ${FULFILMENT_MAX_LINES} lines`];
    return [];
  }
  const parsed = lines.map((line, index) => {
    const lineErrors: FieldErrors = {};
    const fields = collect<Out>(parse(line), lineErrors);
    for (const [name, messages] of Object.entries(lineErrors)) errors[`lines[${index}].${name}`] = messages;
    return fields;
  });
  const perProduct = new Map<number, number>();
  for (const { productId, quantity } of parsed)
    if (typeof quantity === 'number') perProduct.set(productId, (perProduct.get(productId) ?? 0) + quantity);
  for (const [productId, quantity] of perProduct)
    if (quantity > LINE_MAX_QUANTITY)
      errors.lines = [`take more than ${LINE_MAX_QUANTITY} units of product ${productId} at once; make two requests`];
  return parsed;
}
