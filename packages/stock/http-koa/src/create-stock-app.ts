import { type AccessControl, createHttpApp, type HttpApp, type HttpLogger, type ReadinessChecks } from '@platform/koa';
import { toProblem } from './problem';
import { type ProductUseCases, productsRouter } from './products-router';
import { type ReservationUseCases, reservationsRouter } from './reservations-router';
import { StockMetrics } from './stock-metrics';

export interface StockAppOptions {
  readonly useCases: ProductUseCases & ReservationUseCases;
  /** Token checks (or none, when the service runs open). */
  readonly access: AccessControl;
  readonly logger: HttpLogger;
  /** The OpenAPI description served at /swagger; without one (or empty) there is no /swagger. */
  readonly openApiFile?: string;
  /** Readiness: the database answers. Shutting down is tracked by the platform. */
  readonly isReady?: () => Promise<boolean>;
  /** What readiness reports of each dependency (the database, the broker). */
  readonly readinessChecks?: () => Promise<ReadinessChecks>;
}

/** The stock service's HTTP app: the platform's, with the products and reservations routes mounted. */
export function createStockApp({
  useCases,
  access,
  logger,
  openApiFile,
  isReady,
  readinessChecks,
}: StockAppOptions): HttpApp {
  const http = createHttpApp({
    logger,
    toProblem,
    ...(isReady && { isReady }),
    ...(readinessChecks && { readinessChecks }),
    ...(openApiFile && { docs: { specFile: openApiFile, title: 'Stock service API' } }),
  });
  http.route(productsRouter({ useCases, access, logger, metrics: new StockMetrics(http.metrics.registry) }));
  http.route(reservationsRouter({ useCases, access }));
  return http;
}
