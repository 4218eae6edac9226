import type { AccessControl, HttpApp, HttpLogger, ReadinessChecks } from '@platform/http';
import { createHttpApp } from '@platform/http';
import type { HandlePaymentEvent } from '@sales/application';
import type { OrderStatus, PaymentProvider, PaymentStatus } from '@sales/domain';
import { type OrderUseCases, ordersRouter } from './orders/orders-router';
import { paymentEventCounter } from './payments/payment-metrics';
import { paymentEventsRouter } from './payments/payment-events-router';
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
  /** Payments by status, read at scrape time from the database. */
  readonly countPayments: () => Promise<Partial<Record<PaymentStatus, number>>>;
  /** The provider whose webhooks POST /api/payment-events verifies, and what applies them. */
  readonly payments: { readonly provider: PaymentProvider; readonly handlePaymentEvent: HandlePaymentEvent };
}

/**
 * The sales service's HTTP app: the platform's, with the orders routes and the provider's webhook mounted, the orders-
 * and payments-by-status gauges, and the webhook events counter.
 */
export function createSalesApp({
  useCases,
  access,
  logger,
  openApiFile,
  isReady,
  readinessChecks,
  countOrders,
  countPayments,
  payments,
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
  http.metrics.addGauge(
    'sales_payments',
    "Orders' payments by status, across every instance (read from the database)",
    'status',
    countPayments,
  );
  const counter = paymentEventCounter(http.metrics.registry);
  http.route(paymentEventsRouter({ ...payments, counter, logger }));
  http.route(ordersRouter({ useCases, access }));
  return http;
}
