import { allValid, INT32_MAX, Invalid } from '@platform/kernel';
import { isLocationId } from '../locations/location';
import { text } from '../products/product';

export const REASON_MAX_LENGTH = 200;

export const stockAdjustmentFields = {
  /** A non-zero int32: positive restocks, negative sells or writes off. */
  delta: (value: number): number | Invalid => {
    if (!Number.isInteger(value)) return new Invalid('must be an integer');
    if (value === 0) return new Invalid('must not be 0');
    if (value < -INT32_MAX - 1 || value > INT32_MAX)
      return new Invalid(`must be between ${-INT32_MAX - 1} and ${INT32_MAX}`);
    return value;
  },
  reason: text(REASON_MAX_LENGTH),
  locationId: (value: number): number | Invalid => {
    return isLocationId(value) ? value : new Invalid(`must be an integer from 1 to ${INT32_MAX}`);
  },
};

export interface StockAdjustmentInput {
  readonly delta: number;
  readonly reason?: string;
  /** Where the stock moves; absent: the default location. */
  readonly locationId?: number;
}

export class StockAdjustment {
  private constructor(
    readonly delta: number,
    readonly reason: string | undefined,
    readonly locationId: number | undefined,
  ) {}

  /** Answers the adjustment, or throws one ValidationError naming every broken field. */
  static create(input: StockAdjustmentInput): StockAdjustment {
    const { delta, reason, locationId } = allValid({
      delta: stockAdjustmentFields.delta(input.delta),
      reason: input.reason === undefined ? undefined : stockAdjustmentFields.reason(input.reason),
      locationId: input.locationId === undefined ? undefined : stockAdjustmentFields.locationId(input.locationId),
    });
    return new StockAdjustment(delta, reason, locationId);
  }
}
