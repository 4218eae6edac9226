import type { Context, Middleware } from 'koa';
import { type BearerRefusal, sendBearerChallenge } from './bearer-challenge';
import { InvalidTokenError } from './invalid-token-error';
import { type Principal, principalOf } from './principal';
import type { TokenVerifier } from './token-verifier';

/** RFC 6750 §2.1: the scheme, one or more spaces, a token68. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * Who the request's bearer token says is calling, or why the token is
 * refused (what `sendBearerChallenge` answers). Only the Authorization header
 * is read; tokens in query strings end up in logs. An issuer that cannot be
 * reached is thrown (UnavailableError, a 503): the token may be fine.
 */
export async function verifyBearer(
  ctx: Context,
  verifier: TokenVerifier,
): Promise<Principal | Exclude<BearerRefusal, { reason: 'insufficient-scope' }>> {
  const header = ctx.get('Authorization');
  if (!/^Bearer(\s|$)/i.test(header)) return { reason: 'no-token' };
  const token = BEARER.exec(header.trim())?.[1];
  if (!token) return { reason: 'invalid-token', description: 'The Authorization header does not hold a bearer token.' };
  try {
    return await verifier.verify(token);
  } catch (error) {
    if (error instanceof InvalidTokenError) return { reason: 'invalid-token', description: error.message };
    throw error;
  }
}

/** Whether `verifyBearer` refused the token. */
export function isRefusal(outcome: Principal | BearerRefusal): outcome is BearerRefusal {
  return 'reason' in outcome;
}

/**
 * Verifies the request's bearer token and puts its principal on
 * `ctx.state.principal`, once: a second `authenticate` on the same request
 * (app-wide and on a router, say) does not verify again.
 */
export function authenticate(verifier: TokenVerifier): Middleware {
  return async function bearerAuthentication(ctx, next) {
    if (principalOf(ctx)) {
      await next();
      return;
    }
    const outcome = await verifyBearer(ctx, verifier);
    if (isRefusal(outcome)) return sendBearerChallenge(ctx, outcome);
    ctx.state.principal = outcome;
    await next();
  };
}
