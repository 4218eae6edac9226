import { swaggerDocs } from '@stock/koa-swagger';
import Koa from 'koa';
import { errorMiddleware } from './error-middleware';
import type { Logger } from './logger';
import { type ProductUseCases, productsRouter } from './products-router';

/** The contract, served at /swagger and checked against the routes by the contract test. */
export const OPENAPI_FILE = new URL('../../../docs/openapi.yaml', import.meta.url).pathname;

export interface StockAppOptions {
  readonly useCases: ProductUseCases;
  readonly logger: Logger;
  /** Wraps each request, for example to give it a database session of its own. */
  readonly requestScope?: <T>(next: () => Promise<T>) => Promise<T>;
}

export function createStockApp({ useCases, logger, requestScope }: StockAppOptions): Koa {
  const app = new Koa();
  app.silent = true; // errors are logged by the error middleware, once, with context
  app.use(errorMiddleware(logger));
  app.use(swaggerDocs({ specFile: OPENAPI_FILE, title: 'Stock service API' }));
  if (requestScope) app.use((_ctx, next) => requestScope(next));
  const products = productsRouter(useCases, logger);
  app.use(products.routes());
  app.use(products.allowedMethods());
  return app;
}
