import { type BearerRefusal, isRefusal, sendBearerChallenge, type TokenVerifier, verifyBearer } from '@platform/http';
import type { Middleware } from 'koa';
import { keepFromCaches } from './no-store';

/** Why the edge will refuse a request, kept on ctx.state until the rate limit has counted it. */
type Verdict = { readonly refusal: BearerRefusal } | { readonly failure: unknown };

const VERDICT = Symbol('edge verdict');

/**
 * The edge's token check, in two halves with the rate limit between them, so
 * that a flood without a token or with bad ones is counted (by address) like
 * any other traffic, and a client with a good token is counted by its subject.
 * The first half verifies and keeps the verdict; the second answers it: 401
 * (RFC 6750), or the 503 of an issuer that cannot be reached.
 */
export function identifyCaller(verifier: TokenVerifier): Middleware {
  return async function identifyCaller(ctx, next) {
    try {
      const outcome = await verifyBearer(ctx, verifier);
      if (isRefusal(outcome)) (ctx.state as Record<symbol, Verdict>)[VERDICT] = { refusal: outcome };
      else ctx.state.principal = outcome;
    } catch (failure) {
      (ctx.state as Record<symbol, Verdict>)[VERDICT] = { failure };
    }
    await next();
  };
}

/**
 * The second half: answers the verdict `identifyCaller` kept (never to be stored by a cache), or lets the request
 * through.
 */
export function refuseUnidentified(): Middleware {
  return async function refuseUnidentified(ctx, next) {
    const verdict = (ctx.state as Record<symbol, Verdict | undefined>)[VERDICT];
    if (!verdict) {
      await next();
      return;
    }
    // The answer depends on the token (or its absence): no cache may hand it to another client.
    keepFromCaches(ctx);
    if ('failure' in verdict) throw verdict.failure;
    sendBearerChallenge(ctx, verdict.refusal);
  };
}
