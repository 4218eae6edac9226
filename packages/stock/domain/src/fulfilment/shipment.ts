import { type FieldErrors, ValidationError } from '@platform/kernel';
import { collect, collectLines, fulfilmentFields, SHIPMENT_NOTE_MAX_LENGTH, type UnitsAt } from './fulfilment-fields';

/** Units of one product that left one location in a shipment. */
export type ShipmentLine = UnitsAt;

/**
 * Units of an order that left the warehouse: one line per product and location (in that order), each taken from
 * what the order had committed there and not shipped yet.
 */
export interface Shipment {
  readonly id: string;
  readonly orderId: string;
  readonly lines: readonly ShipmentLine[];
  readonly carrier: string | null;
  readonly trackingNumber: string | null;
  readonly createdAt: Date;
}

/** A line as asked: some units of a product, from the location named, or (none named) from the order's allocations. */
export interface ShipmentRequestLine {
  readonly productId: number;
  readonly quantity: number;
  readonly locationId?: number;
}

export interface ShipmentRequestInput {
  readonly orderId: string;
  readonly lines: readonly ShipmentRequestLine[];
  readonly carrier?: string | null;
  readonly trackingNumber?: string | null;
}

const note = fulfilmentFields.note(SHIPMENT_NOTE_MAX_LENGTH);

/** What a caller asks to ship of an order; only `create` makes one, so every instance is valid. */
export class ShipmentRequest {
  private constructor(
    readonly orderId: string,
    /** As asked, in the caller's order: which locations a line without one takes from is the order's to say. */
    readonly lines: readonly ShipmentRequestLine[],
    readonly carrier: string | null,
    readonly trackingNumber: string | null,
  ) {}

  /** Answers the request, or throws one ValidationError naming every broken field (a line's by its index). */
  static create(input: ShipmentRequestInput): ShipmentRequest {
    const errors: FieldErrors = {};
    const { orderId, carrier, trackingNumber } = collect(
      {
        orderId: fulfilmentFields.orderId(input.orderId),
        carrier: note(input.carrier),
        trackingNumber: note(input.trackingNumber),
      },
      errors,
    );
    const lines = collectLines<ShipmentRequestLine, ShipmentRequestLine>(
      input.lines,
      (line) => ({
        productId: fulfilmentFields.productId(line.productId),
        quantity: fulfilmentFields.quantity(line.quantity),
        ...(line.locationId !== undefined && { locationId: fulfilmentFields.locationId(line.locationId) }),
      }),
      errors,
    );
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return new ShipmentRequest(orderId, lines, carrier, trackingNumber);
  }

  /** The products the lines name, each once, in id order. */
  get productIds(): number[] {
    return [...new Set(this.lines.map((line) => line.productId))].sort((a, b) => a - b);
  }

  /** The locations the lines name, each once. */
  get locationIds(): number[] {
    return [...new Set(this.lines.flatMap((line) => (line.locationId === undefined ? [] : [line.locationId])))];
  }
}
