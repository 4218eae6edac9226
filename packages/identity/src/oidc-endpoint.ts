import { requestIdOf } from '@platform/http';
import type { Middleware } from 'koa';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { PAGE_CSP } from './sign-in-page';

type Handler = (request: IncomingMessage, response: ServerResponse) => unknown;

/**
 * Hands the request to oidc-provider, which answers it as a Koa app of its
 * own (the provider is one since version 9, on the Koa 3 we run too): its
 * routes end the response themselves, and it has no 404 of its own, so only
 * routes it serves are handed over. The provider in use is read per request,
 * so a reload swaps it between requests. `mountPath` is where the issuer's
 * path puts the endpoints: oidc-provider builds their URLs from the part of
 * `originalUrl` that precedes `url`, as under Express.
 */
export function oidcEndpoint(mountPath: string, current: () => Provider): Middleware {
  const handlers = new WeakMap<Provider, Handler>();
  return async function oidcEndpoint(ctx) {
    const provider = current();
    let handle = handlers.get(provider);
    if (!handle) handlers.set(provider, (handle = provider.callback() as Handler));
    const { req, res } = ctx;
    const url = req.url!;
    Object.assign(req, { originalUrl: url });
    req.url = url.slice(mountPath.length);
    // Set now: the provider sends the response, so the request context cannot add them afterwards. The policy holds
    // the pages it renders (sign-out, errors) to what the sign-in page may do.
    ctx.set({
      'X-Request-Id': requestIdOf(ctx),
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': PAGE_CSP,
    });
    ctx.respond = false;
    try {
      await new Promise<void>((resolve) => {
        res.once('close', resolve);
        handle(req, res);
      });
    } finally {
      req.url = url; // the access log names the path the client asked for
    }
  };
}
