import Router from '@koa/router';
import { createHttpApp, type HttpApp, problemsFor } from '@platform/http';
import type { Logger } from '@platform/runtime';
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { oidcEndpoint } from './oidc-endpoint';
import { signInRoutes, type StaffSignIn } from './sign-in-routes';

export interface IdentityAppOptions {
  readonly logger: Logger;
  /** The issuer's path ('' or e.g. /identity): the endpoints are served under it. */
  readonly mountPath: string;
  readonly provider: () => Provider;
  readonly trustProxy: boolean;
  /** Staff sign-in, when the service has staff: the browser endpoints are served then, and 404 otherwise. */
  readonly staff: () => StaffSignIn | undefined;
}

/**
 * The house's app (request ids, access log, metrics, health, problem+json)
 * with the three endpoints a client-credentials issuer needs, and, when it has
 * staff, the browser's: authorization, its sign-in pages, and sign-out.
 * oidc-provider's other routes (/me, /reg, …) are never reached: they are 404
 * problems like any unknown path.
 */
export function createIdentityApp({ logger, mountPath, provider, trustProxy, staff }: IdentityAppOptions): HttpApp {
  const http = createHttpApp({ logger, toProblem: problemsFor<never>({}) });
  http.app.proxy = trustProxy;
  const endpoint = oidcEndpoint(mountPath, provider);
  const router = new Router(mountPath ? { prefix: mountPath } : {});
  router.get('/.well-known/openid-configuration', endpoint);
  router.get('/jwks', endpoint);
  router.post('/token', endpoint);
  const forStaff: Middleware = async function browserEndpoint(ctx, next) {
    await (staff() ? endpoint(ctx, next) : next());
  };
  router.get('/auth', forStaff);
  router.get('/auth/:uid', forStaff);
  router.get('/session/end', forStaff);
  router.post('/session/end', forStaff);
  router.post('/session/end/confirm', forStaff);
  router.get('/session/end/success', forStaff);
  http.route(router);
  http.route(signInRoutes(mountPath, staff, logger));
  return http;
}
