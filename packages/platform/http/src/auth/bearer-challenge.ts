import type { Context } from 'koa';
import { problem } from '../problem';
import { sendProblem } from '../problem-middleware';

export type BearerRefusal =
  | { readonly reason: 'no-token' }
  | { readonly reason: 'invalid-token'; readonly description: string }
  /** `scope`: the scopes that would do, space-separated. */
  | { readonly reason: 'insufficient-scope'; readonly scope: string };

/** RFC 6750 §3 quoted strings may not hold `"` or `\`; our texts never do, this keeps it so. */
const quoted = (text: string) => `"${text.replace(/["\\]/g, '')}"`;

/**
 * Answers a request refused for its bearer token: a problem, and the RFC 6750
 * challenge a client library acts on. No token at all gets a bare challenge
 * (§3.1: no error code when the request had no authentication).
 */
export function sendBearerChallenge(ctx: Context, refusal: BearerRefusal): void {
  switch (refusal.reason) {
    case 'no-token':
      sendProblem(
        ctx,
        problem(401, 'TOKEN_REQUIRED', 'This request needs a bearer access token (Authorization: Bearer …).'),
      );
      ctx.set('WWW-Authenticate', 'Bearer');
      return;
    case 'invalid-token':
      sendProblem(ctx, problem(401, 'INVALID_TOKEN', refusal.description));
      ctx.set('WWW-Authenticate', `Bearer error="invalid_token", error_description=${quoted(refusal.description)}`);
      return;
    case 'insufficient-scope':
      sendProblem(
        ctx,
        problem(
          403,
          'INSUFFICIENT_SCOPE',
          refusal.scope.includes(' ')
            ? `This request needs one of the scopes ${refusal.scope.split(' ').join(', ')}, which the access token does not grant.`
            : `This request needs the scope ${refusal.scope}, which the access token does not grant.`,
        ),
      );
      ctx.set('WWW-Authenticate', `Bearer error="insufficient_scope", scope=${quoted(refusal.scope)}`);
  }
}
