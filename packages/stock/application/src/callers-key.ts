import type { IdempotentRequest } from '@platform/kernel';
import { createHash } from 'node:crypto';

/**
 * The Idempotency-Key of a request as one caller's own: the scope gains a
 * digest of the caller (fixed length, whatever the subject), so the same key
 * from another caller is recorded apart and never replays this one's result.
 */
export function callersKey(request: IdempotentRequest, caller: string): IdempotentRequest {
  return { ...request, scope: `${request.scope}:${createHash('sha256').update(caller).digest('base64url')}` };
}
