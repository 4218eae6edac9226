import { ValidationError } from '@platform/kernel';
import type { Context, Middleware } from 'koa';

/**
 * Declares the query parameters a route takes (exact names: a query string is
 * case-sensitive) and refuses any other with a 400 naming each, as bodies
 * refuse unknown properties: `?Limit=10` silently ignored would list the whole
 * catalogue. Each parameter is still decoded where it is used.
 */
export function queryParameters(...names: string[]): Middleware {
  const known = new Set(names);
  const message = `is not a query parameter of this operation (${names.length > 0 ? names.join(', ') : 'it takes none'})`;
  return function queryParameters(ctx, next) {
    // Most requests have no query string at all: then nothing is parsed (ctx.query makes an object per request).
    if (!ctx.req.url!.includes('?')) return next();
    // ctx.query has no prototype, so a parameter named __proto__ is an own key like any other.
    const unknown = Object.keys(ctx.query).filter((name) => !known.has(name));
    if (unknown.length > 0) throw new ValidationError(Object.fromEntries(unknown.map((name) => [name, [message]])));
    return next();
  };
}

/** A query parameter's one value, or undefined when it is absent; given twice (`?limit=1&limit=2`) is a 400. */
export function singleQueryValue(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value)) throw new ValidationError({ [name]: ['must be given at most once'] });
  return value;
}
