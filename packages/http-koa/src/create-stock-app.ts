import type { IdempotencyStore } from '@stock/domain';
import { swaggerDocs } from '@stock/koa-swagger';
import Koa, { type Middleware } from 'koa';
import { join } from 'node:path';
import { errorMiddleware } from './error-middleware';
import type { Logger } from './logger';
import { type PoolStats, StockMetrics } from './metrics';
import { operationsRouter } from './operations-router';
import { type ProductUseCases, productsRouter } from './products-router';
import { requestContext } from './request-context';

/** The contract, served at /swagger and checked against the routes by the contract test. */
export const OPENAPI_FILE = join(import.meta.dirname, '..', '..', '..', 'docs', 'openapi.yaml');

export interface StockAppOptions {
  readonly useCases: ProductUseCases;
  readonly idempotency: IdempotencyStore;
  readonly logger: Logger;
  /** Readiness: the database answers. Shutting down is tracked by the app itself (see `draining`). */
  readonly isDatabaseReachable?: () => Promise<boolean>;
  readonly poolStats?: () => PoolStats | undefined;
}

export interface StockApp {
  readonly app: Koa;
  readonly metrics: StockMetrics;
  /** From now on readiness answers 503 and every response asks the client to close its connection. */
  drain(): void;
}

/**
 * Runs `middleware` only for requests outside /api/, so that product traffic,
 * nearly all of it, skips the docs and the operations router (docs/performance.md).
 */
function outsideTheApi<State, Context>(middleware: Middleware<State, Context>): Middleware<State, Context> {
  return (ctx, next) => (ctx.path.startsWith('/api/') ? next() : middleware(ctx, next));
}

export function createStockApp(options: StockAppOptions): StockApp {
  const { useCases, idempotency, logger, isDatabaseReachable = async () => true, poolStats } = options;
  let draining = false;
  const app = new Koa();
  app.silent = true; // errors are logged by the error middleware, once, with context
  const metrics = new StockMetrics(poolStats);
  app.use(requestContext(logger, (): Record<string, string> => (draining ? { Connection: 'close' } : {})));
  app.use(metrics.middleware());
  app.use(errorMiddleware(logger));
  const operations = operationsRouter({ isReady: async () => !draining && (await isDatabaseReachable()), metrics });
  app.use(outsideTheApi(swaggerDocs({ specFile: OPENAPI_FILE, title: 'Stock service API' })));
  app.use(outsideTheApi(operations.routes()));
  app.use(outsideTheApi(operations.allowedMethods()));
  const products = productsRouter({ useCases, idempotency, logger, metrics });
  app.use(products.routes());
  app.use(products.allowedMethods());
  return {
    app,
    metrics,
    drain() {
      draining = true;
    },
  };
}
