import type { Context, Middleware } from 'koa';

const NO_STORE = Symbol('no-store');

/**
 * The gateway's own answer to this request depends on its token: no cache may keep it (set however the answer ends, a
 * thrown 503 too).
 */
export function keepFromCaches(ctx: Context): void {
  (ctx.state as Record<symbol, boolean>)[NO_STORE] = true;
}

/**
 * Outside the problem middleware, so that it sees the answer as it leaves,
 * problems included (which start from cleared headers): marks with
 * `Cache-Control: no-store` the answers `keepFromCaches` was called for.
 */
export function noStoreWhereKept(): Middleware {
  return async function noStoreWhereKept(ctx, next) {
    await next();
    if ((ctx.state as Record<symbol, boolean | undefined>)[NO_STORE]) ctx.set('Cache-Control', 'no-store');
  };
}
