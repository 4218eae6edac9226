import type { IdempotentRequest } from '@platform/kernel';

/** What the caller of a write says about itself, beside the write. */
export interface WriteOptions {
  /** At most once per key, the key recorded in the same transaction as the effect. */
  readonly idempotency?: IdempotentRequest;
}
