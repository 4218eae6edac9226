import { createHttpApp, type HttpApp, type Logger, type TokenVerifier } from '@platform/koa';
import type { Middleware } from 'koa';
import type { Agent } from 'undici';
import { type ApiDocument, gatewayDocument } from './gateway-docs';
import { identifyCaller, refuseUnidentified } from './edge-token-check';
import { toProblem } from './gateway-errors';
import { proxy, type Route } from './proxy';
import { type RateCounter, rateLimit } from './rate-limit';
import type { UpstreamGroup } from './upstream-group';

export interface GatewayAppOptions {
  readonly logger: Logger;
  readonly routes: readonly Route[];
  readonly groups: readonly UpstreamGroup[];
  readonly dispatcher: Agent;
  readonly timeoutMs: number;
  readonly bodyLimitBytes: number;
  /** Checks tokens at the edge; absent, requests go to the services as they are. */
  readonly verifier?: TokenVerifier;
  readonly rateLimit?: { readonly counter: RateCounter; readonly perMinute: number };
  readonly apis: readonly ApiDocument[];
}

/** Runs `middleware` for the API paths only: health, metrics, docs and the issuer stay open. */
function onApiPaths(middleware: Middleware): Middleware {
  return function onApiPaths(ctx, next) {
    return ctx.path.startsWith('/api/') ? middleware(ctx, next) : next();
  };
}

/**
 * The gateway's app: the platform's (request ids, access log, metrics, health,
 * problem+json, /swagger with both APIs), then the token check at the edge for
 * /api/** around the rate limit (verified, counted, then refused: requests
 * without a good token are counted too), and the proxy. Readiness is 200 while
 * every service has a ready instance, and names each instance's state.
 */
export function createGatewayApp(options: GatewayAppOptions): HttpApp {
  const { logger, groups, verifier } = options;
  const http = createHttpApp({
    logger,
    toProblem,
    isReady: async () => groups.every((group) => group.available),
    readinessChecks: async () =>
      Object.fromEntries(groups.flatMap((group) => [[group.name, group.available ? 'up' : 'down'], ...group.instances.map((instance) => [`${group.name} ${instance.url}`, instance.ready ? 'ready' : 'not ready'])])),
    ...(options.apis.length > 0 && {
      docs: {
        title: 'Commerce APIs through the gateway',
        documents: options.apis.map(gatewayDocument),
        oauth: { appName: 'Commerce gateway', scopeSeparator: ' ' },
      },
    }),
  });
  if (verifier) http.app.use(onApiPaths(identifyCaller(verifier)));
  if (options.rateLimit && options.rateLimit.perMinute > 0) http.app.use(rateLimit(options.rateLimit.counter, options.rateLimit.perMinute));
  if (verifier) http.app.use(onApiPaths(refuseUnidentified()));
  http.app.use(proxy(options));
  return http;
}
