import { type FieldErrors, Invalid, ValidationError } from '@platform/kernel';
import { RETURN_DISPOSITIONS, type ReturnDisposition } from '../stock/levels';
import { collect, collectLines, fulfilmentFields, RETURN_REASON_MAX_LENGTH, type UnitsAt } from './fulfilment-fields';

/** Units of one product that came back to one location (or were declared missing there), with what became of them. */
export interface ReturnLine extends UnitsAt {
  /** What became of them: back on sale, set aside for inspection or as damaged, or never came back (missing). */
  readonly disposition: ReturnDisposition;
}

/**
 * Shipped units of an order that came back: one line per product, location and disposition (in that order). Named
 * StockReturn since `return` is a keyword.
 */
export interface StockReturn {
  readonly id: string;
  readonly orderId: string;
  readonly lines: readonly ReturnLine[];
  readonly reason: string | null;
  readonly createdAt: Date;
}

export interface ReturnRequestInput {
  readonly orderId: string;
  readonly lines: readonly ReturnLine[];
  readonly reason?: string | null;
}

const reasonText = fulfilmentFields.note(RETURN_REASON_MAX_LENGTH);

const disposition = (value: string): ReturnDisposition | Invalid =>
  (RETURN_DISPOSITIONS as readonly string[]).includes(value)
    ? (value as ReturnDisposition)
    : new Invalid(`must be one of ${RETURN_DISPOSITIONS.join(', ')}`);

/** What a caller says came back of an order; only `create` makes one, so every instance is valid. */
export class ReturnRequest {
  private constructor(
    readonly orderId: string,
    /** Summed per product, location and disposition, in product id then location id order. */
    readonly lines: readonly ReturnLine[],
    readonly reason: string | null,
  ) {}

  /** Answers the request, or throws one ValidationError naming every broken field (a line's by its index). */
  static create(input: ReturnRequestInput): ReturnRequest {
    const errors: FieldErrors = {};
    const { orderId, reason } = collect(
      { orderId: fulfilmentFields.orderId(input.orderId), reason: reasonText(input.reason) },
      errors,
    );
    const lines = collectLines<ReturnLine, ReturnLine>(
      input.lines,
      (line) => ({
        productId: fulfilmentFields.productId(line.productId),
        locationId: fulfilmentFields.locationId(line.locationId),
        quantity: fulfilmentFields.quantity(line.quantity),
        disposition: disposition(line.disposition),
      }),
      errors,
    );
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return new ReturnRequest(orderId, summedReturnLines(lines), reason);
  }

  /** The locations the lines name, each once. */
  get locationIds(): number[] {
    return [...new Set(this.lines.map((line) => line.locationId))];
  }
}

/** Lines of one product, location and disposition summed, in product id, location id and disposition order. */
function summedReturnLines(lines: readonly ReturnLine[]): ReturnLine[] {
  const byKey = new Map<string, ReturnLine>();
  for (const line of lines) {
    const key = `${line.productId}/${line.locationId}/${line.disposition}`;
    const seen = byKey.get(key);
    byKey.set(key, seen ? { ...seen, quantity: seen.quantity + line.quantity } : line);
  }
  return [...byKey.values()].sort(
    (a, b) =>
      a.productId - b.productId ||
      a.locationId - b.locationId ||
      RETURN_DISPOSITIONS.indexOf(a.disposition) - RETURN_DISPOSITIONS.indexOf(b.disposition),
  );
}
