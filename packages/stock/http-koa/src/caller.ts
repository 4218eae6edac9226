import { principalOf } from '@platform/http';
import { ANONYMOUS_CALLER } from '@stock/domain';
import type { Context } from 'koa';

/**
 * Who calls: the access token's subject, or ANONYMOUS_CALLER when the service checks no tokens (every caller is then
 * the same one).
 */
export function callerOf(ctx: Context): string {
  return principalOf(ctx)?.subject ?? ANONYMOUS_CALLER;
}
