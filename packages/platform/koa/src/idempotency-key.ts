import { type IdempotentRequest, ValidationError } from '@platform/kernel';
import type { Context } from 'koa';
import { createHash } from 'node:crypto';

const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The request's Idempotency-Key as the use case takes it, or undefined when
 * it sends none. The fingerprint covers the path (one key cannot adjust two
 * products) and the decoded payload, so casing and key order do not matter.
 */
export function idempotencyKeyOf(ctx: Context, scope: string, payload: unknown): IdempotentRequest | undefined {
  const key = ctx.get('Idempotency-Key');
  if (!key) return undefined;
  if (!KEY.test(key)) throw new ValidationError({ 'Idempotency-Key': ['must be 1 to 255 visible ASCII characters'] });
  const fingerprint = createHash('sha256').update(`${ctx.path}\n${JSON.stringify(payload)}`).digest('hex');
  return { scope, key, fingerprint };
}

/** Marks a response that repeats the one recorded for its key. */
export function markReplayed(ctx: Context, replayed: boolean): void {
  if (replayed) ctx.set('Idempotent-Replayed', 'true');
}
