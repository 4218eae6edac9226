import { problemMiddleware } from '@stock/koa-problem';
import type { Middleware } from 'koa';
import type { Logger } from './logger';
import { toProblem } from './problem';
import { requestIdOf } from './request-context';

/** Every error leaves as application/problem+json, with the status the code table gives. */
export function errorMiddleware(logger: Logger): Middleware {
  return problemMiddleware({
    toProblem,
    logUnexpected: (error, ctx) =>
      logger.error('unhandled error', { method: ctx.method, path: ctx.path, requestId: requestIdOf(ctx), error: error instanceof Error ? error.stack : String(error) }),
  });
}
