import type Router from '@koa/router';
import { type SwaggerDocsOptions, swaggerDocs } from './swagger-docs';
import Koa, { type Middleware } from 'koa';
import compose from 'koa-compose';
import { HttpMetrics } from './http-metrics';
import type { HttpLogger } from './logger';
import { operationsRouter, type ReadinessChecks } from './operations-router';
import type { Problem } from './problem';
import { problemMiddleware } from './problem-middleware';
import { requestContext, requestIdOf } from './request-context';

export interface HttpAppOptions {
  readonly logger: HttpLogger;
  /** The problem for each error the service knows (see problemsFor); anything else is a logged 500. */
  readonly toProblem: (error: unknown) => Problem | undefined;
  /** Whether the service's dependencies answer; shutting down is tracked here, by `drain`. */
  readonly isReady?: () => Promise<boolean>;
  /**
   * What readiness reports of each dependency, whatever its verdict (a broker that is away does not stop the traffic:
   * events wait in the outbox).
   */
  readonly readinessChecks?: () => Promise<ReadinessChecks>;
  /** The OpenAPI description (or descriptions) served at /swagger, handed in by the composition root. */
  readonly docs?: SwaggerDocsOptions;
}

export interface HttpApp {
  readonly app: Koa;
  readonly metrics: HttpMetrics;
  /** Mounts a router: its routes, and 405 with Allow for its paths' other methods. */
  route(router: Router): void;
  /**
   * From now on readiness answers 503, so that balancers stop routing here;
   * the requests that still come are served as before, keep-alive included
   * (serve asks clients to close their connections once it stops accepting).
   */
  drain(): void;
}

/**
 * Runs `middleware` only for requests outside /api/, so that API traffic,
 * nearly all of it, skips the docs and the operations router (docs/performance.md).
 */
function outsideTheApi<State, Context>(middleware: Middleware<State, Context>): Middleware<State, Context> {
  return function outsideTheApi(ctx, next) {
    // Koa types a middleware's result and next()'s as any: each is the promise of the rest of the chain.
    return (ctx.path.startsWith('/api/') ? next() : middleware(ctx, next)) as Promise<void>;
  };
}

/**
 * A service's Koa app with everything every service needs, in order: request
 * id, headers, access log and metrics; problem+json for every error; /swagger,
 * health and metrics endpoints. The service then mounts its own routers.
 */
export function createHttpApp({
  logger,
  toProblem,
  isReady = async () => true,
  readinessChecks,
  docs,
}: HttpAppOptions): HttpApp {
  let draining = false;
  const app = new Koa();
  app.silent = true; // errors are logged by the problem middleware, once, with context
  const metrics = new HttpMetrics();
  app.use(requestContext(logger, metrics));
  app.use(
    problemMiddleware({
      toProblem,
      logUnexpected: (error, ctx) =>
        logger.error('unhandled error', {
          method: ctx.method,
          path: ctx.path,
          requestId: requestIdOf(ctx),
          error: error instanceof Error ? error.stack : String(error),
        }),
    }),
  );
  const operations = operationsRouter({
    isReady: async () => !draining && (await isReady()),
    ...(readinessChecks && { checks: readinessChecks }),
    metrics,
  });
  const outside: Middleware[] = [operations.routes() as Middleware, operations.allowedMethods() as Middleware];
  if (docs) outside.unshift(swaggerDocs(docs));
  app.use(outsideTheApi(compose(outside)));
  return {
    app,
    metrics,
    route(router) {
      app.use(router.routes());
      app.use(router.allowedMethods());
    },
    drain() {
      draining = true;
    },
  };
}
