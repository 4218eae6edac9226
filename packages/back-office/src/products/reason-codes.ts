/** An adjustment's reason codes, as docs/openapi.yaml lists them (AdjustmentReasonCode): a test holds them together. */
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
