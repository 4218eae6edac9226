import { type AccessControl, createHttpApp, type HttpApp, type HttpLogger, type ReadinessChecks } from '@platform/http';
import { type LocationUseCases, locationsRouter } from './locations/locations-router';
import { toProblem } from './problem';
import { type ProductImportUseCases, productImportsRouter } from './imports/product-imports-router';
import { type ProductUseCases, productsRouter } from './products/products-router';
import { type ReservationUseCases, reservationsRouter } from './reservations/reservations-router';
import { StockMetrics } from './stock-metrics';
import { stockTransfersRouter, type TransferUseCases } from './transfers/stock-transfers-router';
import { type ReturnUseCases, returnsRouter } from './fulfilment/returns-router';
import { type ShipmentUseCases, shipmentsRouter } from './fulfilment/shipments-router';

export interface StockAppOptions {
  readonly useCases: ProductUseCases &
    ProductImportUseCases &
    ReservationUseCases &
    LocationUseCases &
    TransferUseCases &
    ShipmentUseCases &
    ReturnUseCases;
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

/**
 * The stock service's HTTP app: the platform's, with the products (their imports and exports too), reservations,
 * locations, transfers, shipments and returns routes.
 */
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
  // Before the products' routes: /api/products/export is not a product id.
  http.route(productImportsRouter({ useCases, access, logger }));
  http.route(productsRouter({ useCases, access, logger, metrics: new StockMetrics(http.metrics.registry) }));
  http.route(reservationsRouter({ useCases, access }));
  http.route(locationsRouter({ useCases, access }));
  http.route(stockTransfersRouter({ useCases, access }));
  http.route(shipmentsRouter({ useCases, access }));
  http.route(returnsRouter({ useCases, access }));
  return http;
}
