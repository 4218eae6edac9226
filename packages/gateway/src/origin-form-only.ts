import type { Middleware } from 'koa';
import { GatewayError } from './gateway-errors';

/**
 * Only a path (and query) may follow the method: RFC 9112 §3.2.1's origin
 * form. Node also hands over the absolute form (`GET http://x/identity/jwks`,
 * `ftp://…`) and `OPTIONS *`, whose path Koa parses out while the request
 * target stays whole; the gateway routes on the one and would forward the
 * other. It is no forward proxy: anything but a path is a 400.
 */
export function originFormOnly(): Middleware {
  return function originFormOnly(ctx, next) {
    if (ctx.url.startsWith('/')) return next();
    throw new GatewayError(
      'INVALID_REQUEST_TARGET',
      'The request target must be a path (origin form, RFC 9112 §3.2.1): this gateway forwards no absolute URLs.',
    );
  };
}
