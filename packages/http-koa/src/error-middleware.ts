import type { Context, Middleware } from 'koa';
import type { Logger } from './logger';
import { INTERNAL_ERROR, type Problem, toProblem } from './problem';
import { RequestError } from './request-error';

function send(ctx: Context, problem: Problem): void {
  ctx.status = problem.status;
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify({ ...problem, instance: ctx.path });
}

/**
 * The head of the chain: every error, thrown or left as a bare status by the
 * router, leaves as application/problem+json with the status the table gives.
 */
export function errorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const problem = toProblem(error);
      if (!problem) logger.error('unhandled error', { method: ctx.method, path: ctx.path, error: error instanceof Error ? error.stack : String(error) });
      send(ctx, problem ?? INTERNAL_ERROR);
      return;
    }
    if (ctx.body != null) return;
    if (ctx.status === 404) {
      send(ctx, toProblem(new RequestError('ROUTE_NOT_FOUND', `No resource at ${ctx.path}.`))!);
    } else if (ctx.status === 405 || ctx.status === 501) {
      // The router answers 501 to methods it knows nothing of (PATCH, PROPFIND…): for a client it is the same 405.
      send(ctx, toProblem(new RequestError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; see the Allow header.`))!);
    }
  };
}
