import type { Context, Middleware } from 'koa';
import { STATUS_CODES } from 'node:http';
import { ProblemError } from './problem-error';

/** An RFC 9457 problem document; `code` and `errors` are extension members. */
export interface Problem {
  readonly type: 'about:blank';
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: string;
  readonly instance: string;
  readonly errors?: Readonly<Record<string, readonly string[]>>;
}

function send(ctx: Context, status: number, code: string, detail: string, errors?: Problem['errors']): void {
  const title = errors ? 'One or more validation errors occurred.' : (STATUS_CODES[status] ?? 'Error');
  const problem: Problem = { type: 'about:blank', title, status, detail, code, instance: ctx.path, ...(errors && { errors }) };
  ctx.status = status;
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify(problem);
}

/** Errors from Koa itself (http-errors) say whether their message is fit for the client. */
function clientErrorStatus(error: unknown): number | undefined {
  const { status, expose } = (error ?? {}) as { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose === true ? status : undefined;
}

/**
 * The head of the chain: every error, thrown or left as a bare status by the
 * router, leaves as application/problem+json. Anything unplanned is a 500
 * whose body says nothing of the cause; the cause goes to `logUnexpected`.
 */
export function errorMiddleware(logUnexpected: (error: unknown, ctx: Context) => void): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      // Headers a handler set before failing (an Allow, a cache header) must not leak into the problem.
      ctx.res.getHeaderNames().forEach((name) => ctx.remove(name));
      if (error instanceof ProblemError) return send(ctx, error.status, error.code, error.message, error.errors);
      const status = clientErrorStatus(error);
      if (status) return send(ctx, status, 'BAD_REQUEST', (error as Error).message);
      logUnexpected(error, ctx);
      return send(ctx, 500, 'INTERNAL_ERROR', 'The server failed to handle this request. It has been logged.');
    }
    if (ctx.body != null) return;
    // The router answers 501 to a method outside its list (PROPFIND…) even on a path it does not know:
    // an Allow listing methods means the path exists, so 405; an empty one means 404.
    const pathExists = ctx.response.get('Allow') !== '';
    if (ctx.status === 405 || (ctx.status === 501 && pathExists)) {
      send(ctx, 405, 'METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; see the Allow header.`);
    } else if (ctx.status === 404 || ctx.status === 501) {
      ctx.remove('Allow');
      send(ctx, 404, 'ROUTE_NOT_FOUND', `No resource at ${ctx.path}.`);
    }
  };
}
