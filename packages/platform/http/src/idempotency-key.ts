import { type IdempotentRequest, ValidationError } from '@platform/kernel';
import type { Context } from 'koa';
import { createHash } from 'node:crypto';
import { principalOf } from './auth/principal';

const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Whom a key belongs to on a service that checks no tokens: everyone is then
 * the same caller. The name stock and sales already used for it, so records
 * written before keys were scoped here are still found.
 */
const OPEN_SERVICE_CALLER = 'anonymous';

/**
 * The request's Idempotency-Key and the scope it is recorded in, or undefined
 * when it sends none. A key is its caller's own: the scope gains a digest of
 * the token's subject (fixed length, whatever the subject), so another
 * caller's same key is another request, recorded apart, and never answers
 * this caller's result. For a body read as a stream (an import), whose
 * fingerprint is known only once it is read.
 */
export function idempotencyScopeOf(ctx: Context, scope: string): { scope: string; key: string } | undefined {
  // An empty header is a key that breaks the rule, not the absence of one: the client meant one.
  const key = ctx.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY.test(key))
    throw new ValidationError({ 'Idempotency-Key': ['must be 1 to 255 visible ASCII characters'] });
  const caller = principalOf(ctx)?.subject ?? OPEN_SERVICE_CALLER;
  return { scope: `${scope}:${createHash('sha256').update(caller).digest('base64url')}`, key };
}

/**
 * The request's Idempotency-Key as the use case takes it, or undefined when
 * it sends none, scoped to its caller (idempotencyScopeOf). The fingerprint
 * covers the path (one key cannot adjust two products) and the decoded
 * payload, so casing and key order do not matter.
 */
export function idempotencyKeyOf(ctx: Context, scope: string, payload: unknown): IdempotentRequest | undefined {
  const scoped = idempotencyScopeOf(ctx, scope);
  if (!scoped) return undefined;
  const fingerprint = createHash('sha256')
    .update(`${ctx.path}\n${JSON.stringify(payload)}`)
    .digest('hex');
  return { ...scoped, fingerprint };
}

/** Marks a response that repeats the one recorded for its key. */
export function markReplayed(ctx: Context, replayed: boolean): void {
  if (replayed) ctx.set('Idempotent-Replayed', 'true');
}
