import { type IdempotencyStore, type RecordedResponse, ValidationError } from '@stock/domain';
import type { Context } from 'koa';
import { createHash } from 'node:crypto';

const KEY = /^[\x21-\x7e]{1,255}$/;

function send(ctx: Context, { status, headers, body }: RecordedResponse): void {
  ctx.status = status;
  ctx.set(headers);
  ctx.type = 'application/json';
  ctx.body = body;
}

/**
 * Answers a POST through `run`, at most once per Idempotency-Key. A repeat with
 * the same key and (decoded) payload gets the recorded status, headers and body, marked
 * `Idempotent-Replayed: true`; the same key with another payload is a 422.
 * Without the header, `run` simply runs.
 */
export async function respondIdempotently(ctx: Context, store: IdempotencyStore, scope: string, payload: unknown, run: () => Promise<RecordedResponse>): Promise<void> {
  const key = ctx.get('Idempotency-Key');
  if (!key) return send(ctx, await run());
  if (!KEY.test(key)) throw new ValidationError({ 'Idempotency-Key': ['must be 1 to 255 visible ASCII characters'] });
  // The decoded payload, so casing and key order do not matter; the path is part of it: one key cannot adjust two products.
  const fingerprint = createHash('sha256').update(`${ctx.path}\n${JSON.stringify(payload)}`).digest('hex');
  const { response, replayed } = await store.once({ scope, key, fingerprint }, run);
  if (replayed) ctx.set('Idempotent-Replayed', 'true');
  send(ctx, response);
}
