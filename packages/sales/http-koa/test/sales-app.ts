import { Apis } from '@commerce/contracts';
import { accessControl, tokenVerifierFor } from '@platform/http';
import { timeOrderedId } from '@platform/kernel';
import { capturingLogger } from '@platform/runtime';
import {
  CancelOrder,
  GetOrder,
  HandlePaymentEvent,
  ListOrders,
  PerformPaymentWork,
  PlaceOrder,
  RequestRefund,
} from '@sales/application';
import type { QuotedProduct } from '@sales/domain';
import { FakePaymentProvider, FixedCatalog } from '@sales/domain/testing';
import { InMemorySalesStore } from '@sales/persistence-memory';
import type { AddressInfo } from 'node:net';
import { createSalesApp } from '../src';
import { SALES_OPENAPI_FILE, type SalesClient, salesClient } from './sales-contract';

export interface SalesAppUnderTest extends SalesClient {
  readonly url: string;
  readonly store: InMemorySalesStore;
  /** The provider the app's webhook verifies with, and the calls the payment work made to it. */
  readonly provider: FakePaymentProvider;
  /** Makes the call an order owes the provider, as the service's worker does. */
  readonly paymentWork: PerformPaymentWork;
  readonly logs: Record<string, unknown>[];
  close(): Promise<void>;
}

export interface SalesAppOptions {
  /** What stock's catalogue quotes. */
  readonly products?: readonly QuotedProduct[];
  /** The issuer whose tokens for the sales API it checks, as the service does with AUTH_ISSUER; open without one. */
  readonly authIssuer?: string;
}

/** createSalesApp over the use cases on the in-memory store, on a real server on loopback and an ephemeral port. */
export async function startSalesApp({
  products = [],
  authIssuer = '',
}: SalesAppOptions = {}): Promise<SalesAppUnderTest> {
  const logs: Record<string, unknown>[] = [];
  const logger = capturingLogger('sales-service', logs);
  const store = new InMemorySalesStore({ idempotencyTtlMs: 60_000 });
  const clock = () => new Date();
  const provider = new FakePaymentProvider();
  const http = createSalesApp({
    useCases: {
      placeOrder: new PlaceOrder(store.unitOfWork, new FixedCatalog(products), { clock, newId: () => timeOrderedId() }),
      getOrder: new GetOrder(store.orders),
      listOrders: new ListOrders(store.orders),
      cancelOrder: new CancelOrder(store.unitOfWork, clock),
      requestRefund: new RequestRefund(store.unitOfWork, { clock, newId: () => timeOrderedId() }),
    },
    access: accessControl(
      tokenVerifierFor({ authIssuer, authAudience: Apis.sales.audience, authDiscoveryUrl: '' }, logger),
      logger,
    ),
    logger,
    openApiFile: SALES_OPENAPI_FILE,
    countOrders: () => store.orders.countByStatus(),
    countPayments: () => store.orders.countByPaymentStatus(),
    payments: { provider, handlePaymentEvent: new HandlePaymentEvent(store.unitOfWork, { clock }) },
  });
  const server = http.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    ...salesClient(url),
    url,
    store,
    provider,
    paymentWork: new PerformPaymentWork(store.unitOfWork, provider, { clock, currency: 'EUR' }),
    logs,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // fetch keeps connections alive; without this close() waits for them to time out.
        server.closeAllConnections();
      }),
  };
}
