import { INT32_MAX } from '@platform/kernel';

/** Product ids are positive int32s, assigned by stock's store; sales quotes them in its order lines. */
export function isProductId(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= INT32_MAX;
}
