import { capturingLogger } from '@platform/runtime';
import { type Backend, IN_THIS_PROCESS, scratchDatabaseFor } from '@platform/test-kit';
import { SALES_OPENAPI_FILE, type SalesClient, salesClient } from '@sales/http-koa/testing';
import { DEFAULT_CONFIG as STOCK_DEFAULTS, type RunningStockService, startStockService } from '@stock/service';
import { HandlePaymentEvent, PerformPaymentWork } from '@sales/application';
import { FakePaymentProvider } from '@sales/domain/testing';
import { randomUUID } from 'node:crypto';
import type { DependencyContainer } from 'tsyringe';
import {
  DEFAULT_CONFIG,
  type RunningSalesService,
  type SalesServiceConfig,
  type StartOptions,
  startSalesService,
  Tokens,
} from '../src';

export type { Backend };

/** The service, and requests to it checked against docs/sales.openapi.yaml (@sales/http-koa/testing). */
export interface SalesUnderTest extends SalesClient {
  readonly service: RunningSalesService;
  readonly logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** The sales service, as main starts it, on an ephemeral port and a fresh database of the backend's kind. */
export async function startSales(
  backend: Backend,
  context: Mocha.Context,
  config: Partial<SalesServiceConfig> = {},
  options: StartOptions = {},
): Promise<SalesUnderTest> {
  const database = await scratchDatabaseFor(backend, context, 'sales');
  const logs: Record<string, unknown>[] = [];
  const service = await startSalesService(
    {
      ...DEFAULT_CONFIG,
      ...IN_THIS_PROCESS,
      databaseUrl: database.url,
      dbCreateDatabase: 'true',
      openApiFile: SALES_OPENAPI_FILE,
      ...config,
    },
    { logger: capturingLogger('sales-service', logs), ...options },
  );
  return {
    ...salesClient(service.url),
    service,
    logs,
    async stop() {
      await service.close({ immediate: true });
      await database.cleanUp();
    },
  };
}

export interface StockUnderTest {
  readonly service: RunningStockService;
  readonly url: string;
  /** Creates a product; answers its id. */
  product(name: string, price: number, quantityInStock: number): Promise<number>;
  stop(): Promise<void>;
}

/** The stock service in this process, in memory: what sales reads its catalogue from. */
export async function startStock(config: Partial<typeof STOCK_DEFAULTS> = {}): Promise<StockUnderTest> {
  const service = await startStockService({
    ...STOCK_DEFAULTS,
    ...IN_THIS_PROCESS,
    logLevel: 'error',
    ...config,
  });
  return {
    service,
    url: service.url,
    async product(name, price, quantityInStock) {
      const response = await fetch(`${service.url}/api/products`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, price, quantityInStock }),
      });
      if (response.status !== 201) throw new Error(`product not created: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { id: number }).id;
    },
    stop: async () => void (await service.close({ immediate: true })),
  };
}

/** Puts a payment provider in memory in place of the service's (StartOptions.configure), for other suites. */
export function withFakePaymentProvider(container: DependencyContainer): void {
  container.register(Tokens.PaymentProvider, { useValue: new FakePaymentProvider() });
}

/**
 * Pays an order stock holds as the provider would, on a service started withFakePaymentProvider: the authorisation the
 * order owes (the worker's part), then the provider's word that its total is held.
 */
export async function payThroughFakeProvider(service: RunningSalesService, orderId: string): Promise<void> {
  const { container } = service;
  await container.resolve(PerformPaymentWork).execute(orderId);
  const order = (await container.resolve(Tokens.OrderRepository).findById(orderId))!;
  await container.resolve(HandlePaymentEvent).execute({
    kind: 'authorized',
    eventId: `evt_${randomUUID()}`,
    occurredAt: new Date(),
    intentId: order.payment!.intentId,
    orderId,
    amount: order.total.cents,
    currency: order.payment!.currency,
  });
}
