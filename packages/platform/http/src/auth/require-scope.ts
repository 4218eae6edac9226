import type { Middleware } from 'koa';
import { sendBearerChallenge } from './bearer-challenge';
import { principalOf } from './principal';

/**
 * Lets a request through only when its principal holds one of `scopes` (a
 * buyer's `orders:read`, or an admin's `orders:admin`); a route nobody
 * authenticated is refused as if it had no token, never let through. The 403
 * names them all (RFC 6750 §3: a space-delimited list).
 */
export function requireScope(...scopes: [string, ...string[]]): Middleware {
  return async function scopeCheck(ctx, next) {
    const principal = principalOf(ctx);
    if (!principal) return sendBearerChallenge(ctx, { reason: 'no-token' });
    if (!scopes.some((scope) => principal.scopes.includes(scope)))
      return sendBearerChallenge(ctx, { reason: 'insufficient-scope', scope: scopes.join(' ') });
    await next();
  };
}
