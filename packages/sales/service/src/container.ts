import 'reflect-metadata';
import { Apis, Scopes } from '@commerce/contracts';
import { timeOrderedId } from '@platform/kernel';
import { accessControl, tokenVerifierFor } from '@platform/koa';
import { messagingFor, wakingTheRelay } from '@platform/messaging-rabbitmq';
import { MikroOrmOutbox } from '@platform/mikro-orm';
import { createLogger, type Logger } from '@platform/runtime';
import { CancelOrder, GetOrder, HandleStockEvent, ListOrders, PayOrder, PlaceOrder } from '@sales/application';
import { createSalesApp } from '@sales/http-koa';
import { SALES_QUEUE, stockEventsHandler } from '@sales/messaging';
import { InMemorySalesStore } from '@sales/persistence-memory';
import { MikroOrmOrderRepository, MikroOrmSalesUnitOfWork, openSalesDatabase } from '@sales/persistence-mikro-orm';
import { ClientCredentials, HttpProductCatalog } from '@sales/stock-client';
import { container as rootContainer, type DependencyContainer, type InjectionToken, instanceCachingFactory } from 'tsyringe';
import { mayCreateDatabase, type SalesServiceConfig } from './config';
import { Tokens } from './tokens';

/** The API sales calls stock's with, and what it may do there: read the catalogue. */
const STOCK_RESOURCE = Apis.stock.audience;
const STOCK_SCOPE = Scopes.stock.read;

function single<T>(container: DependencyContainer, token: InjectionToken<T>, build: (c: DependencyContainer) => T): void {
  container.register(token, { useFactory: instanceCachingFactory(build) });
}

/** The storage the connection string names: `memory:` keeps everything in this process, anything else is a database. */
async function registerStorage(container: DependencyContainer, config: SalesServiceConfig, logger: Logger): Promise<void> {
  const idempotencyTtlMs = config.idempotencyTtlSeconds * 1000;
  if (/^memory:/i.test(config.databaseUrl)) {
    const store = new InMemorySalesStore({ idempotencyTtlMs });
    container.register(Tokens.UnitOfWork, { useValue: store.unitOfWork });
    container.register(Tokens.OrderRepository, { useValue: store.orders });
    container.register(Tokens.OutboxStore, { useValue: store.outbox });
    return;
  }
  const database = await openSalesDatabase(config.databaseUrl, {
    poolSize: config.dbPoolSize,
    queryTimeoutMs: config.dbQueryTimeoutMs,
    acquireTimeoutMs: config.dbAcquireTimeoutMs,
    createDatabase: mayCreateDatabase(config),
    logger,
  });
  container.register(Tokens.Database, { useValue: database });
  container.register(Tokens.UnitOfWork, { useValue: new MikroOrmSalesUnitOfWork(database, idempotencyTtlMs) });
  container.register(Tokens.OrderRepository, { useValue: new MikroOrmOrderRepository(database.session) });
  container.register(Tokens.OutboxStore, { useValue: new MikroOrmOutbox(database.session) });
}

/** Stock's catalogue over HTTP, with sales' own token when it has a client at the issuer. */
function productCatalog(config: SalesServiceConfig, logger: Logger): HttpProductCatalog {
  if (config.authIssuer && !config.stockClientId) logger.warn('STOCK_CLIENT_ID is not set: sales calls stock without a token, which a stock service that checks tokens refuses');
  const credentials = config.stockClientId
    ? new ClientCredentials({ issuer: config.authIssuer, ...(config.authDiscoveryUrl && { discoveryUrl: config.authDiscoveryUrl }), clientId: config.stockClientId, clientSecret: config.stockClientSecret, resource: STOCK_RESOURCE, scope: STOCK_SCOPE })
    : undefined;
  return new HttpProductCatalog({ stockUrl: config.stockUrl, ...(credentials && { credentials }), resilience: { attemptTimeoutMs: config.stockTimeoutMs } });
}

/**
 * Every registration of the service, in one place. Storage is opened here (it
 * is asynchronous); everything else is built on first use. Settings are read
 * from `config` where a registration needs them; the configuration itself is
 * not in the container, since nothing would resolve it.
 */
export async function createContainer(config: SalesServiceConfig, logger?: Logger): Promise<DependencyContainer> {
  const container = rootContainer.createChildContainer();
  const serviceLogger = logger ?? createLogger('sales-service', config.logLevel, config.logFormat);
  container.register(Tokens.Logger, { useValue: serviceLogger });
  await registerStorage(container, config, serviceLogger);
  if (config.amqpUrl) {
    // A unit of work that wrote events wakes this instance's relay once it commits; the relay's polling stays the guarantee.
    const unitOfWork = container.resolve(Tokens.UnitOfWork);
    container.register(Tokens.UnitOfWork, { useValue: wakingTheRelay(unitOfWork, () => container.resolve(Tokens.Messaging).wake()) });
  }
  container.register(Tokens.Clock, { useValue: () => new Date() });
  single(container, Tokens.ProductCatalog, () => productCatalog(config, serviceLogger));
  single(container, Tokens.Access, () => accessControl(tokenVerifierFor(config, serviceLogger), serviceLogger));
  const writes = (c: DependencyContainer) => [c.resolve(Tokens.UnitOfWork), c.resolve(Tokens.Clock)] as const;
  single(container, PlaceOrder, (c) => new PlaceOrder(c.resolve(Tokens.UnitOfWork), c.resolve(Tokens.ProductCatalog), { clock: c.resolve(Tokens.Clock), newId: () => timeOrderedId() }));
  single(container, GetOrder, (c) => new GetOrder(c.resolve(Tokens.OrderRepository)));
  single(container, ListOrders, (c) => new ListOrders(c.resolve(Tokens.OrderRepository)));
  single(container, CancelOrder, (c) => new CancelOrder(...writes(c)));
  single(container, PayOrder, (c) => new PayOrder(...writes(c)));
  single(container, HandleStockEvent, (c) => new HandleStockEvent(...writes(c), SALES_QUEUE));
  if (config.amqpUrl) {
    single(container, Tokens.Messaging, (c) => {
      const parts = { service: SALES_QUEUE, handler: stockEventsHandler(c.resolve(HandleStockEvent), serviceLogger), outbox: c.resolve(Tokens.OutboxStore), logger: serviceLogger };
      return messagingFor(config, { ...parts, registry: c.resolve(Tokens.HttpApp).metrics.registry })!;
    });
  }
  single(container, Tokens.HttpApp, (c) => {
    const database = c.isRegistered(Tokens.Database) ? c.resolve(Tokens.Database) : undefined;
    const orders = c.resolve(Tokens.OrderRepository);
    const http = createSalesApp({
      useCases: { placeOrder: c.resolve(PlaceOrder), getOrder: c.resolve(GetOrder), listOrders: c.resolve(ListOrders), cancelOrder: c.resolve(CancelOrder), payOrder: c.resolve(PayOrder) },
      access: c.resolve(Tokens.Access),
      logger: serviceLogger,
      openApiFile: config.openApiFile,
      countOrders: () => orders.countByStatus(),
      ...(database && { isReady: () => database.isReady() }),
      // Resolved when readiness is asked, after the messaging (which needs this app's metrics registry) exists.
      readinessChecks: async () => ({
        database: database ? ((await database.isReady()) ? 'up' : 'down') : 'memory',
        broker: c.isRegistered(Tokens.Messaging) ? (c.resolve(Tokens.Messaging).isConnected ? 'up' : 'down') : 'off',
      }),
    });
    if (database) http.metrics.addGauge('db_pool_connections', 'Database pool connections by state (used, free, pending acquisitions, max)', 'state', () => database.poolStats());
    return http;
  });
  return container;
}
