import {
  type HttpApp,
  type HttpLogger,
  HttpMetrics,
  operationsRouter,
  problemMiddleware,
  requestContext,
  requestIdOf,
  swaggerDocs,
  type TokenVerifier,
} from '@platform/http';
import Koa, { type Middleware } from 'koa';
import type { Agent } from 'undici';
import { backOfficeFiles } from './back-office';
import { identifyCaller, refuseUnidentified } from './edge-token-check';
import { type ApiDocument, gatewayDocument } from './gateway-docs';
import { toProblem } from './gateway-errors';
import { noStoreWhereKept } from './no-store';
import { originFormOnly } from './origin-form-only';
import { proxy, type Route } from './proxy';
import { publicHealth } from './public-health';
import { type RateCounter, rateLimit } from './rate-limit';
import type { UpstreamGroup } from './upstream-group';

export interface GatewayAppOptions {
  readonly logger: HttpLogger;
  readonly routes: readonly Route[];
  readonly groups: readonly UpstreamGroup[];
  readonly dispatcher: Agent;
  readonly timeoutMs: number;
  readonly bodyLimitBytes: number;
  /**
   * PUBLIC_URL: the host and scheme the services are told; empty, the address the gateway listens on (HOST, and its
   * port).
   */
  readonly publicUrl: string;
  readonly host: string;
  /** Checks tokens at the edge; absent, requests go to the services as they are. */
  readonly verifier?: TokenVerifier;
  readonly rateLimit?: { readonly counter: RateCounter; readonly perMinute: number };
  readonly apis: readonly ApiDocument[];
  /** The back office's built files, served at /admin/; absent, no /admin/. */
  readonly backOfficeDir?: string;
}

/** The public app, as startService serves it, and the operators' app, for the metrics listener. */
export interface GatewayApp extends HttpApp {
  /** /metrics, /health/live, and /health/ready naming each service and instance: not for the public port. */
  readonly operations: Koa;
}

/**
 * API paths whose callers carry no token: the payment provider's webhook proves itself by its signature, which sales
 * checks over the body as sent (the gateway passes the body through untouched).
 */
const OPEN_API_PATHS: ReadonlySet<string> = new Set(['/api/payment-events']);

/** Runs `middleware` for the API paths that take tokens only: what the token check needs. */
function onApiPaths(middleware: Middleware): Middleware {
  return function onApiPaths(ctx, next) {
    const checked = ctx.path.startsWith('/api/') && !OPEN_API_PATHS.has(ctx.path);
    // Koa types a middleware's result and next()'s as any: each is the promise of the rest of the chain.
    return (checked ? middleware(ctx, next) : next()) as Promise<void>;
  };
}

/** Runs `middleware` outside the API paths only, so that API traffic, nearly all of it, skips health and docs. */
function outsideTheApi(middleware: Middleware): Middleware {
  return function outsideTheApi(ctx, next) {
    // Koa types a middleware's result and next()'s as any: each is the promise of the rest of the chain.
    return (ctx.path.startsWith('/api/') ? next() : middleware(ctx, next)) as Promise<void>;
  };
}

/**
 * The gateway's apps. The public one: request ids, access log and metrics,
 * problem+json; then the token check at the edge for /api/** around the rate
 * limit (verified, counted, then refused: requests without a good token are
 * counted too), which counts everything the gateway answers, its health and
 * docs too; request targets other than a path refused; public health, which
 * says ready or not and nothing of what is behind; /swagger with both APIs;
 * and the proxy. The operators' app, for a listener of their own
 * (METRICS_PORT): /metrics, and readiness naming each instance's state.
 * Both answer 503 to readiness once `drain` is called, and serve as before
 * otherwise: keep-alive ends when the server stops accepting (the platform's
 * serve), not at drain, whose Connection: close would send clients to open
 * new connections just before the listener closes.
 */
export function createGatewayApp(options: GatewayAppOptions): GatewayApp {
  const { logger, groups, verifier } = options;
  let draining = false;
  const isReady = async () => !draining && groups.every((group) => group.available);
  const metrics = new HttpMetrics();
  const problems = problemMiddleware({
    toProblem,
    logUnexpected: (error, ctx) =>
      logger.error('unhandled error', {
        method: ctx.method,
        path: ctx.path,
        requestId: requestIdOf(ctx),
        error: error instanceof Error ? error.stack : String(error),
      }),
  });

  const app = new Koa();
  app.silent = true; // errors are logged by the problem middleware, once, with context
  app.use(requestContext(logger, metrics));
  app.use(noStoreWhereKept());
  app.use(problems);
  if (verifier) app.use(onApiPaths(identifyCaller(verifier)));
  if (options.rateLimit && options.rateLimit.perMinute > 0)
    app.use(rateLimit(options.rateLimit.counter, options.rateLimit.perMinute));
  app.use(originFormOnly());
  if (verifier) app.use(onApiPaths(refuseUnidentified()));
  app.use(outsideTheApi(publicHealth(isReady)));
  if (options.apis.length > 0) {
    app.use(
      outsideTheApi(
        swaggerDocs({
          title: 'Commerce APIs through the gateway',
          documents: options.apis.map(gatewayDocument),
          oauth: { appName: 'Commerce gateway', scopeSeparator: ' ' },
        }),
      ),
    );
  }
  if (options.backOfficeDir) app.use(outsideTheApi(backOfficeFiles(options.backOfficeDir)));
  app.use(proxy(options));

  const operations = new Koa();
  operations.silent = true;
  const router = operationsRouter({
    isReady,
    checks: async () =>
      Object.fromEntries(
        groups.flatMap((group): [string, string][] => [
          [group.name, group.available ? 'up' : 'down'],
          ...group.instances.map((instance): [string, string] => [
            `${group.name} ${instance.url}`,
            instance.ready ? 'ready' : 'not ready',
          ]),
        ]),
      ),
    metrics,
  });
  operations.use(problems);
  operations.use(router.routes() as Middleware);
  operations.use(router.allowedMethods() as Middleware);

  return {
    app,
    metrics,
    operations,
    route(router) {
      app.use(router.routes() as Middleware);
      app.use(router.allowedMethods() as Middleware);
    },
    drain() {
      draining = true;
    },
  };
}
