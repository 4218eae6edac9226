/**
 * An adjustment's reason codes, as docs/openapi.yaml lists them (AdjustmentReasonCode): a test holds them together.
 * Not imported from @stock/domain, whose list this is: its one entry point brings the whole domain and
 * @platform/kernel (node:crypto) into the browser's bundle, and the stock API's contract is what the app talks to.
 */
export const ADJUSTMENT_REASON_CODES = [
  'received',
  'correction',
  'cycle-count',
  'damaged',
  'lost',
  'found',
  'returned',
  'other',
] as const;

export type AdjustmentReasonCode = (typeof ADJUSTMENT_REASON_CODES)[number];
