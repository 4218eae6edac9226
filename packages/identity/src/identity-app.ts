import Router from '@koa/router';
import { createHttpApp, type HttpApp, problemsFor } from '@platform/http';
import type { Logger } from '@platform/runtime';
import type Provider from 'oidc-provider';
import { oidcEndpoint } from './oidc-endpoint';

export interface IdentityAppOptions {
  readonly logger: Logger;
  /** The issuer's path ('' or e.g. /identity): the endpoints are served under it. */
  readonly mountPath: string;
  readonly provider: () => Provider;
  readonly trustProxy: boolean;
}

/**
 * The house's app (request ids, access log, metrics, health, problem+json)
 * with the three endpoints a client-credentials issuer needs. oidc-provider's
 * other routes (/auth, /session/end, …) want cookies or storage and are never
 * reached: they are 404 problems like any unknown path.
 */
export function createIdentityApp({ logger, mountPath, provider, trustProxy }: IdentityAppOptions): HttpApp {
  const http = createHttpApp({ logger, toProblem: problemsFor<never>({}) });
  http.app.proxy = trustProxy;
  const endpoint = oidcEndpoint(mountPath, provider);
  const router = new Router(mountPath ? { prefix: mountPath } : {});
  router.get('/.well-known/openid-configuration', endpoint);
  router.get('/jwks', endpoint);
  router.post('/token', endpoint);
  http.route(router);
  return http;
}
