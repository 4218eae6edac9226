import { InsufficientStockError, StockLimitExceededError, ValidationError } from './errors';
import { INT32_MAX, longerThan, NUL_MESSAGE } from './product';

/** Stock never goes below this, nor above STOCK_MAX: adapters apply the same bounds in their atomic statements. */
export const STOCK_MIN = 0;
export const STOCK_MAX = INT32_MAX;
export const REASON_MAX_LENGTH = 200;

export interface StockAdjustment {
  /** A non-zero int32: positive restocks, negative sells or writes off. */
  readonly delta: number;
  readonly reason?: string;
}

export const stockAdjustmentRules = {
  delta(value: number): string | undefined {
    if (!Number.isInteger(value)) return 'must be an integer';
    if (value === 0) return 'must not be 0';
    if (value < -INT32_MAX - 1 || value > INT32_MAX) return `must be between ${-INT32_MAX - 1} and ${INT32_MAX}`;
    return undefined;
  },
  reason(value: string): string | undefined {
    if (value.includes('\u0000')) return NUL_MESSAGE;
    return longerThan(value, REASON_MAX_LENGTH) ? `must be at most ${REASON_MAX_LENGTH} characters` : undefined;
  },
};

export function validateStockAdjustment(adjustment: StockAdjustment): StockAdjustment {
  const errors: Record<string, string[]> = {};
  const delta = stockAdjustmentRules.delta(adjustment.delta);
  if (delta) errors.delta = [delta];
  const reason = adjustment.reason === undefined ? undefined : stockAdjustmentRules.reason(adjustment.reason);
  if (reason) errors.reason = [reason];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return adjustment;
}

/** The stock after an adjustment, or the error that says why it cannot be applied. */
export function adjustedStock(productId: number, available: number, delta: number): number {
  const next = available + delta;
  if (next < STOCK_MIN) throw new InsufficientStockError(productId, available, delta);
  if (next > STOCK_MAX) throw new StockLimitExceededError(productId, available, delta);
  return next;
}
