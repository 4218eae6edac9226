import type { Middleware } from 'koa';
import { sendBearerChallenge } from './bearer-challenge';
import { InvalidTokenError } from './invalid-token-error';
import { principalOf } from './principal';
import type { TokenVerifier } from './token-verifier';

/** RFC 6750 §2.1: the scheme, one or more spaces, a token68. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * Verifies the request's bearer token and puts its principal on
 * `ctx.state.principal`, once: a second `authenticate` on the same request
 * (app-wide and on a router, say) does not verify again. Only the
 * Authorization header is read; tokens in query strings end up in logs.
 */
export function authenticate(verifier: TokenVerifier): Middleware {
  return async function bearerAuthentication(ctx, next) {
    if (principalOf(ctx)) return next();
    const header = ctx.get('Authorization');
    if (!/^Bearer(\s|$)/i.test(header)) return sendBearerChallenge(ctx, { reason: 'no-token' });
    const token = BEARER.exec(header.trim())?.[1];
    if (!token) return sendBearerChallenge(ctx, { reason: 'invalid-token', description: 'The Authorization header does not hold a bearer token.' });
    try {
      ctx.state.principal = await verifier.verify(token);
    } catch (error) {
      if (error instanceof InvalidTokenError) return sendBearerChallenge(ctx, { reason: 'invalid-token', description: error.message });
      throw error;
    }
    await next();
  };
}
