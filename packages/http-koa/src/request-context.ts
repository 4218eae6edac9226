import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from './logger';

const storage = new AsyncLocalStorage<{ readonly requestId: string }>();
const CLIENT_REQUEST_ID = /^[\w.:@\-/]{1,128}$/;

/** The id of the request being handled, for log lines written anywhere below it. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/**
 * The outermost middleware: gives each request an id (the client's
 * X-Request-Id when it is sane, a new UUID otherwise), answers it in every
 * response with the headers every response carries, and writes one access log line.
 */
export function requestContext(logger: Logger, extraHeaders: () => Record<string, string> = () => ({})): Middleware {
  return (ctx, next) => {
    const offered = ctx.get('X-Request-Id');
    const requestId = CLIENT_REQUEST_ID.test(offered) ? offered : randomUUID();
    const started = process.hrtime.bigint();
    return storage.run({ requestId }, async () => {
      try {
        await next();
      } finally {
        // Set last: the problem middleware clears headers on errors.
        ctx.set({ 'X-Request-Id': requestId, 'X-Content-Type-Options': 'nosniff', ...extraHeaders() });
        ctx.remove('X-Powered-By');
        logger.info('request', {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          durationMs: Number(process.hrtime.bigint() - started) / 1e6,
          requestId,
        });
      }
    });
  };
}
