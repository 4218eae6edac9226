import type { IdempotentRequest } from '@platform/kernel';
import { ANONYMOUS_CALLER } from '@stock/domain';

/** What the caller of a write says about itself, beside the write. */
export interface WriteOptions {
  /** At most once per key, the key recorded in the same transaction as the effect. */
  readonly idempotency?: IdempotentRequest;
  /** The HTTP request id or the message id that caused the write: recorded in the stock movements it appends. */
  readonly requestId?: string;
  /** Who asks (the token's subject over HTTP): recorded as the actor of the movements it appends. */
  readonly caller?: string;
}

/** The actor of a write's movements: its caller; one that says none is the anonymous caller (tokens are off). */
export function actorOf(caller: string | undefined): string {
  return caller ?? ANONYMOUS_CALLER;
}
