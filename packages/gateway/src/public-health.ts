import { HEALTH_PATHS, RequestError } from '@platform/http';
import type { Middleware } from 'koa';

/**
 * The gateway's health on its public port, for a load balancer in front: live,
 * and ready or not, and nothing more. Which services and instances lie behind
 * it, and their addresses, are told on the metrics listener only.
 */
export function publicHealth(isReady: () => Promise<boolean>): Middleware {
  return async function publicHealth(ctx, next) {
    if (!HEALTH_PATHS.has(ctx.path)) {
      await next();
      return;
    }
    (ctx as { _matchedRoute?: string })._matchedRoute = ctx.path;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'HEAD, GET');
      ctx.status = 405;
      return;
    }
    if (ctx.path === '/health/live') {
      ctx.body = { status: 'live' };
      return;
    }
    if (!(await isReady()))
      throw new RequestError(
        'NOT_READY',
        'The gateway is shutting down, or a service behind it has no instance ready.',
      );
    ctx.body = { status: 'ready' };
  };
}
