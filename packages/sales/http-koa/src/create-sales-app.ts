import type { AccessControl, HttpApp, HttpLogger, ReadinessChecks } from '@platform/http';
import { createHttpApp } from '@platform/http';
import type { OrderStatus } from '@sales/domain';
import { type OrderUseCases, ordersRouter } from './orders/orders-router';
import { toProblem } from './problem';

export interface SalesAppOptions {
  readonly useCases: OrderUseCases;
  readonly access: AccessControl;
  readonly logger: HttpLogger;
  /** The OpenAPI description served at /swagger; without one (or empty) there is no /swagger. */
  readonly openApiFile?: string;
  /** Readiness: the database answers. */
  readonly isReady?: () => Promise<boolean>;
  /** What readiness reports of each dependency (the database, the broker). */
  readonly readinessChecks?: () => Promise<ReadinessChecks>;
  /** Orders by status, read at scrape time from the database, so every instance reports the same truth. */
  readonly countOrders: () => Promise<Partial<Record<OrderStatus, number>>>;
}

/** The sales service's HTTP app: the platform's, with the orders routes mounted and the orders-by-status gauge. */
export function createSalesApp({
  useCases,
  access,
  logger,
  openApiFile,
  isReady,
  readinessChecks,
  countOrders,
}: SalesAppOptions): HttpApp {
  const http = createHttpApp({
    logger,
    toProblem,
    ...(isReady && { isReady }),
    ...(readinessChecks && { readinessChecks }),
    ...(openApiFile && { docs: { specFile: openApiFile, title: 'Sales service API' } }),
  });
  http.metrics.addGauge(
    'sales_orders',
    'Orders by status, across every instance (read from the database)',
    'status',
    countOrders,
  );
  http.route(ordersRouter({ useCases, access }));
  return http;
}
