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

/** Where a path falls in the routing table: its first two segments, in lower case (routes ignore case). */
function routingKeyOf(path: string): string {
  const first = path.indexOf('/', 1);
  const second = first < 0 ? -1 : path.indexOf('/', first + 1);
  const key = second < 0 ? (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path) : path.slice(0, second);
  return key.toLowerCase();
}

/** The static start of a route's path, up to its first parameter or pattern. */
const STATIC_HEAD = /^[^:(*?{}[\\]*/;

/**
 * The routing keys a router's layers can match (a router with a prefix, nearly always one), or undefined when one of
 * its layers may match paths of any key: a parameter or a pattern in its first two segments, a `use` without a path.
 */
function routingKeysOf(router: Router): Set<string> | undefined {
  const keys = new Set<string>();
  for (const { path } of router.stack) {
    if (typeof path !== 'string') return undefined;
    const head = STATIC_HEAD.exec(path)![0];
    const rest = path.slice(head.length);
    const first = head.indexOf('/', 1);
    const second = first < 0 ? -1 : head.indexOf('/', first + 1);
    // One static path (`/health`, `/api/products/export`), or a layer under two whole static segments: a route's
    // (`/api/products/:id`) or a prefix's `use` (`/api/products(?:\/|$)`). Not `/auth/:uid`: its key is the path's.
    const exact = rest === '' && head.startsWith('/');
    if (!exact && !(second > 0 || (first > 0 && rest === '(?:\\/|$)'))) return undefined;
    const key = routingKeyOf(head);
    keys.add(key);
  }
  return keys;
}

/**
 * The API's routers, in the order they were mounted, dispatched by the start of the path: a request to
 * /api/products/7 goes through the routers that have routes under /api/products only, each with its own 405s
 * (docs/performance/platform-cost.md). A router that may match anywhere is in every key's chain, in its place.
 */
class RoutingTable {
  private readonly routers: Router[] = [];
  private chains: Map<string, Middleware> | undefined;
  private anywhere: Middleware | undefined;

  add(router: Router): void {
    this.routers.push(router);
    this.chains = undefined;
  }

  /** The chain for a path; built on the first request, once every router is mounted (and has its routes). */
  chainFor(path: string): Middleware {
    if (!this.chains) this.build();
    return this.chains!.get(routingKeyOf(path)) ?? this.anywhere!;
  }

  private build(): void {
    const keysOf = this.routers.map(routingKeysOf);
    const keys = new Set(keysOf.flatMap((routerKeys) => (routerKeys ? [...routerKeys] : [])));
    const chainOf = (key: string | undefined) =>
      compose(
        this.routers.flatMap((router, index) => {
          const routerKeys = keysOf[index];
          if (routerKeys && (key === undefined || !routerKeys.has(key))) return [];
          return [router.routes() as Middleware, router.allowedMethods() as Middleware];
        }),
      );
    this.chains = new Map([...keys].map((key) => [key, chainOf(key)]));
    this.anywhere = chainOf(undefined);
  }
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
  const outsideTheApi: Middleware[] = [operations.routes() as Middleware, operations.allowedMethods() as Middleware];
  if (docs) outsideTheApi.unshift(swaggerDocs(docs));
  const outside = compose(outsideTheApi);
  const table = new RoutingTable();
  // One layer: API traffic, nearly all of it, skips the docs and the operations router (docs/performance.md), and
  // goes through its own routers only.
  app.use(function routes(ctx, next) {
    const { path } = ctx;
    // Koa types a middleware's result and next()'s as any: each is the promise of the rest of the chain.
    if (path.startsWith('/api/')) return table.chainFor(path)(ctx, next) as Promise<void>;
    return outside(ctx, () => table.chainFor(path)(ctx, next) as Promise<void>);
  });
  return {
    app,
    metrics,
    route(router) {
      table.add(router);
    },
    drain() {
      draining = true;
    },
  };
}
