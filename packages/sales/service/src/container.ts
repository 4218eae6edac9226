import 'reflect-metadata';
import { Apis, Scopes } from '@commerce/contracts';
import { timeOrderedId } from '@platform/kernel';
import type { Logger } from '@platform/runtime';
import { bind, createServiceContainer, single } from '@platform/http/service';
import type { ServiceRoot, ServiceStorage } from '@platform/http/service';
import {
  CancelOrder,
  GetOrder,
  HandlePaymentEvent,
  HandleStockEvent,
  ListOrders,
  PerformPaymentWork,
  PlaceOrder,
  RejectUnansweredOrders,
  RequestRefund,
} from '@sales/application';
import type { SalesTransaction } from '@sales/domain';
import { createSalesApp } from '@sales/http-koa';
import { SALES_QUEUE, stockEventsHandler } from './stock-events-handler';
import { InMemorySalesStore } from '@sales/persistence-memory';
import { MikroOrmOrderRepository, MikroOrmSalesUnitOfWork, openSalesDatabase } from '@sales/persistence-sql';
import { StripePaymentProvider } from '@sales/payments-stripe';
import { ClientCredentials, HttpProductCatalog } from '@sales/stock-client';
import type { DependencyContainer } from 'tsyringe';
import { DEFAULT_DATABASE_URL, type SalesServiceConfig } from './config';
import { PAYMENTS_OFF } from './payments-off';
import { Tokens } from './tokens';

/** The API sales calls stock's with, and what it may do there: read the catalogue. */
const STOCK_RESOURCE = Apis.stock.audience;
const STOCK_SCOPE = Scopes.stock.read;

const MESSAGING_OFF =
  'messaging is off (AMQP_URL is not set): orders are placed but stay pending; their events wait in the outbox';

const STORAGE: ServiceStorage<SalesTransaction> = {
  defaultDatabaseUrl: DEFAULT_DATABASE_URL,
  memory(idempotencyTtlMs) {
    const store = new InMemorySalesStore({ idempotencyTtlMs });
    const repositories = [bind(Tokens.OrderRepository, store.orders)];
    return { unitOfWork: store.unitOfWork, outbox: store.outbox, repositories };
  },
  open: openSalesDatabase,
  database: (database, idempotencyTtlMs) => ({
    unitOfWork: new MikroOrmSalesUnitOfWork(database, { idempotencyTtlMs }),
    repositories: [bind(Tokens.OrderRepository, new MikroOrmOrderRepository(database.session))],
  }),
};

/** Stock's catalogue over HTTP, with sales' own token when it has a client at the issuer. */
function productCatalog(config: SalesServiceConfig, logger: Logger): HttpProductCatalog {
  if (config.authIssuer && !config.stockClientId)
    logger.warn(
      'STOCK_CLIENT_ID is not set: sales calls stock without a token, which a stock service that checks tokens refuses',
    );
  const credentials = config.stockClientId
    ? new ClientCredentials({
        issuer: config.authIssuer,
        ...(config.authDiscoveryUrl && { discoveryUrl: config.authDiscoveryUrl }),
        clientId: config.stockClientId,
        clientSecret: config.stockClientSecret,
        resource: STOCK_RESOURCE,
        scope: STOCK_SCOPE,
      })
    : undefined;
  return new HttpProductCatalog({
    stockUrl: config.stockUrl,
    ...(credentials && { credentials }),
    resilience: { attemptTimeoutMs: config.stockTimeoutMs },
  });
}

/** Whether the service takes payments: both of the provider's secrets are set (loadConfig refuses one alone). */
export function paymentsAreOn(config: SalesServiceConfig): boolean {
  return Boolean(config.paymentsApiKey && config.paymentsWebhookSecret);
}

function paymentProvider(config: SalesServiceConfig) {
  if (!paymentsAreOn(config)) return PAYMENTS_OFF;
  return new StripePaymentProvider({
    apiKey: config.paymentsApiKey,
    webhookSecret: config.paymentsWebhookSecret,
    ...(config.paymentsUrl && { url: config.paymentsUrl }),
  });
}

/**
 * Sales' own registrations, each once, each built by the container on first use from what it resolves: the stock
 * catalogue client and the use cases. The order use cases are also registered together, as the router takes them.
 */
function registerOwn(container: DependencyContainer, config: SalesServiceConfig): void {
  single(container, Tokens.ProductCatalog, (c) => productCatalog(config, c.resolve(Tokens.Logger)));
  single(
    container,
    PlaceOrder,
    (c) =>
      new PlaceOrder(c.resolve(Tokens.UnitOfWork), c.resolve(Tokens.ProductCatalog), {
        clock: c.resolve(Tokens.Clock),
        newId: () => timeOrderedId(),
      }),
  );
  single(container, GetOrder, (c) => new GetOrder(c.resolve(Tokens.OrderRepository)));
  single(container, ListOrders, (c) => new ListOrders(c.resolve(Tokens.OrderRepository)));
  single(container, CancelOrder, (c) => new CancelOrder(c.resolve(Tokens.UnitOfWork), c.resolve(Tokens.Clock)));
  single(container, Tokens.PaymentProvider, () => paymentProvider(config));
  single(
    container,
    RequestRefund,
    (c) =>
      new RequestRefund(c.resolve(Tokens.UnitOfWork), { clock: c.resolve(Tokens.Clock), newId: () => timeOrderedId() }),
  );
  single(
    container,
    HandlePaymentEvent,
    (c) => new HandlePaymentEvent(c.resolve(Tokens.UnitOfWork), { clock: c.resolve(Tokens.Clock) }),
  );
  single(
    container,
    PerformPaymentWork,
    (c) =>
      new PerformPaymentWork(c.resolve(Tokens.UnitOfWork), c.resolve(Tokens.PaymentProvider), {
        clock: c.resolve(Tokens.Clock),
        currency: config.currency,
      }),
  );
  single(
    container,
    HandleStockEvent,
    (c) =>
      new HandleStockEvent(c.resolve(Tokens.UnitOfWork), { clock: c.resolve(Tokens.Clock), consumer: SALES_QUEUE }),
  );
  single(
    container,
    RejectUnansweredOrders,
    (c) =>
      new RejectUnansweredOrders(c.resolve(Tokens.UnitOfWork), {
        clock: c.resolve(Tokens.Clock),
        answerTimeoutMs: config.orderAnswerTimeoutSeconds * 1_000,
      }),
  );
  single(container, Tokens.OrderUseCases, (c) => ({
    placeOrder: c.resolve(PlaceOrder),
    getOrder: c.resolve(GetOrder),
    listOrders: c.resolve(ListOrders),
    cancelOrder: c.resolve(CancelOrder),
    requestRefund: c.resolve(RequestRefund),
  }));
}

/** Stock's reservation events, applied to the orders they answer. */
function stockEvents(c: DependencyContainer) {
  return stockEventsHandler(c.resolve(HandleStockEvent), c.resolve(Tokens.Logger));
}

/** What the sales service wires for itself; the platform wires storage, the relay, readiness, metrics and messaging. */
export function salesRoot(config: SalesServiceConfig): ServiceRoot<SalesTransaction> {
  return {
    name: 'sales-service',
    storage: STORAGE,
    register: (container) => registerOwn(container, config),
    messaging: { queue: SALES_QUEUE, handler: stockEvents, off: MESSAGING_OFF },
    http: (c, health) => {
      const orders = c.resolve(Tokens.OrderRepository);
      return createSalesApp({
        useCases: c.resolve(Tokens.OrderUseCases),
        access: c.resolve(Tokens.Access),
        logger: c.resolve(Tokens.Logger),
        openApiFile: config.openApiFile,
        countOrders: () => orders.countByStatus(),
        countPayments: () => orders.countByPaymentStatus(),
        payments: { provider: c.resolve(Tokens.PaymentProvider), handlePaymentEvent: c.resolve(HandlePaymentEvent) },
        ...health,
      });
    },
  };
}

/** Every registration of the service: the platform's shape (createServiceContainer) with sales' own parts. */
export function createContainer(config: SalesServiceConfig, logger?: Logger): Promise<DependencyContainer> {
  return createServiceContainer(config, salesRoot(config), logger);
}
