import { allValid, INT32_MAX, Invalid } from '@platform/kernel';
import { isLocationId } from '../locations/location';
import { text } from '../products/product';
import { UNIT_STATES, type UnitState } from './levels';
import { ADJUSTMENT_REASON_CODES, type AdjustmentReasonCode, DEFAULT_REASON_CODE } from './movement';

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
  state: (value: string): UnitState | Invalid => {
    return UNIT_STATES.includes(value as UnitState)
      ? (value as UnitState)
      : new Invalid(`must be one of ${UNIT_STATES.join(', ')}`);
  },
  reasonCode: (value: string): AdjustmentReasonCode | Invalid => {
    return ADJUSTMENT_REASON_CODES.includes(value as AdjustmentReasonCode)
      ? (value as AdjustmentReasonCode)
      : new Invalid(`must be one of ${ADJUSTMENT_REASON_CODES.join(', ')}`);
  },
  /** A number of units moved between states: an int32 from 1. */
  quantity: (value: number): number | Invalid => {
    return Number.isInteger(value) && value >= 1 && value <= INT32_MAX
      ? value
      : new Invalid(`must be an integer from 1 to ${INT32_MAX}`);
  },
};

export interface StockAdjustmentInput {
  readonly delta: number;
  readonly reason?: string;
  /** Where the stock moves; absent: the default location. */
  readonly locationId?: number;
  /** The state the units enter or leave with on hand; absent: available. */
  readonly state?: string;
  /** Why; absent: correction. */
  readonly reasonCode?: string;
}

export class StockAdjustment {
  private constructor(
    readonly delta: number,
    readonly reason: string | undefined,
    readonly locationId: number | undefined,
    readonly state: UnitState,
    readonly reasonCode: AdjustmentReasonCode,
  ) {}

  /** Answers the adjustment, or throws one ValidationError naming every broken field. */
  static create(input: StockAdjustmentInput): StockAdjustment {
    const fields = stockAdjustmentFields;
    const { delta, reason, locationId, state, reasonCode } = allValid({
      delta: fields.delta(input.delta),
      reason: input.reason === undefined ? undefined : fields.reason(input.reason),
      locationId: input.locationId === undefined ? undefined : fields.locationId(input.locationId),
      state: input.state === undefined ? 'available' : fields.state(input.state),
      reasonCode: input.reasonCode === undefined ? DEFAULT_REASON_CODE : fields.reasonCode(input.reasonCode),
    });
    return new StockAdjustment(delta, reason, locationId, state, reasonCode);
  }
}

export interface StockStateChangeInput {
  readonly locationId: number;
  readonly quantity: number;
  readonly from: string;
  readonly to: string;
  readonly reasonCode?: string;
  readonly reason?: string;
}

/** Units on hand at a location moved from one state to another (ProductStock.changeState). */
export class StockStateChange {
  private constructor(
    readonly locationId: number,
    readonly quantity: number,
    readonly from: UnitState,
    readonly to: UnitState,
    readonly reasonCode: AdjustmentReasonCode,
    readonly reason: string | undefined,
  ) {}

  /** Answers the change, or throws one ValidationError naming every broken field (`to` the same state as `from`). */
  static create(input: StockStateChangeInput): StockStateChange {
    const fields = stockAdjustmentFields;
    const { locationId, quantity, from, to, reasonCode, reason } = allValid({
      locationId: fields.locationId(input.locationId),
      quantity: fields.quantity(input.quantity),
      from: fields.state(input.from),
      to: input.to === input.from ? new Invalid('must be another state than from') : fields.state(input.to),
      reasonCode: input.reasonCode === undefined ? DEFAULT_REASON_CODE : fields.reasonCode(input.reasonCode),
      reason: input.reason === undefined ? undefined : fields.reason(input.reason),
    });
    return new StockStateChange(locationId, quantity, from, to, reasonCode, reason);
  }
}
