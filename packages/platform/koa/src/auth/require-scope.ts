import type { Middleware } from 'koa';
import { sendBearerChallenge } from './bearer-challenge';
import { principalOf } from './principal';

/**
 * Lets a request through only when its principal holds `scope`; a route
 * nobody authenticated is refused as if it had no token, never let through.
 */
export function requireScope(scope: string): Middleware {
  return async function scopeCheck(ctx, next) {
    const principal = principalOf(ctx);
    if (!principal) return sendBearerChallenge(ctx, { reason: 'no-token' });
    if (!principal.scopes.includes(scope)) return sendBearerChallenge(ctx, { reason: 'insufficient-scope', scope });
    await next();
  };
}
