import { ValidationError } from '@platform/kernel';
import type { Middleware } from 'koa';

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
    // ctx.query has no prototype, so a parameter named __proto__ is an own key like any other.
    const unknown = Object.keys(ctx.query).filter((name) => !known.has(name));
    if (unknown.length > 0) throw new ValidationError(Object.fromEntries(unknown.map((name) => [name, [message]])));
    return next();
  };
}
