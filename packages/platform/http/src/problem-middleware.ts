import { UnavailableError } from '@platform/kernel';
import type { Context, Middleware } from 'koa';
import { INTERNAL_ERROR, type Problem, problem, problemFromHttpError } from './problem';

export interface ProblemMiddlewareOptions {
  /** The problem for an error the application knows, or undefined. */
  toProblem: (error: unknown) => Problem | undefined;
  /** Called once for each error nobody planned for; the client only learns it was a 500. */
  logUnexpected: (error: unknown, ctx: Context) => void;
}

export function sendProblem(ctx: Context, { status, ...rest }: Problem): void {
  ctx.status = status;
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify({ ...rest, status, instance: ctx.path });
}

/**
 * The head of the chain: every error, thrown or left by the router as a bare
 * status, leaves as application/problem+json.
 */
export function problemMiddleware({ toProblem, logUnexpected }: ProblemMiddlewareOptions): Middleware {
  return async function problemResponses(ctx, next) {
    try {
      await next();
    } catch (error) {
      // Headers a handler set before failing (a Location, an Allow) must not leak into the problem.
      for (const name of ctx.res.getHeaderNames()) ctx.remove(name);
      const known = toProblem(error) ?? problemFromHttpError(error);
      if (!known) logUnexpected(error, ctx);
      sendProblem(ctx, known ?? INTERNAL_ERROR);
      // A dependency that is down: the client may retry, and is told when (RFC 9110 §10.2.3).
      if (error instanceof UnavailableError) ctx.set('Retry-After', String(error.retryAfterSeconds));
      return;
    }
    if (ctx.body != null) return;
    // @koa/router answers 501 to a method outside its list (PROPFIND…), even on a path it does not
    // know: an Allow that lists methods means the path exists, so 405; an empty one means 404.
    const pathExists = Boolean(ctx.response.get('Allow'));
    if (ctx.status === 405 || (ctx.status === 501 && pathExists)) {
      sendProblem(
        ctx,
        problem(405, 'METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; see the Allow header.`),
      );
    } else if (ctx.status === 404 || ctx.status === 501) {
      ctx.remove('Allow');
      sendProblem(ctx, problem(404, 'ROUTE_NOT_FOUND', `No resource at ${ctx.path}.`));
    }
  };
}
