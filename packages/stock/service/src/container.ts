import 'reflect-metadata';
import { accessControl, tokenVerifierFor } from '@platform/koa';
import { messagingFor, wakingTheRelay } from '@platform/messaging-rabbitmq';
import { MikroOrmOutbox } from '@platform/mikro-orm';
import { createLogger, type Logger } from '@platform/runtime';
import {
  AdjustStock,
  CommitForOrder,
  CommitReservation,
  CreateProduct,
  DeleteProduct,
  ExpireReservations,
  GetProduct,
  GetProducts,
  GetReservation,
  ListProducts,
  ListStockMovements,
  ReleaseForOrder,
  ReleaseReservation,
  ReserveForOrder,
  ReserveStock,
  StreamProducts,
  UpdateProduct,
} from '@stock/application';
import { createStockApp } from '@stock/http-koa';
import { orderEventsHandler, STOCK_QUEUE } from '@stock/messaging';
import { InMemoryStockStore } from '@stock/persistence-memory';
import { MikroOrmProductRepository, MikroOrmReservationRepository, MikroOrmStockMovementRepository, MikroOrmUnitOfWork, openStockDatabase } from '@stock/persistence-mikro-orm';
import { randomUUID } from 'node:crypto';
import { container as rootContainer, type DependencyContainer, type InjectionToken, instanceCachingFactory } from 'tsyringe';
import { mayCreateDatabase, type StockServiceConfig } from './config';
import { Tokens } from './tokens';

/** Registers a class built once, on first use, by `build`. */
function single<T>(container: DependencyContainer, token: InjectionToken<T>, build: (c: DependencyContainer) => T): void {
  container.register(token, { useFactory: instanceCachingFactory(build) });
}

/** The storage the connection string names: `memory:` keeps everything in this process, anything else is a database. */
async function registerStorage(container: DependencyContainer, config: StockServiceConfig, logger: Logger): Promise<void> {
  const idempotencyTtlMs = config.idempotencyTtlSeconds * 1000;
  if (/^memory:/i.test(config.databaseUrl)) {
    const store = new InMemoryStockStore({ idempotencyTtlMs });
    container.register(Tokens.UnitOfWork, { useValue: store.unitOfWork });
    container.register(Tokens.ProductRepository, { useValue: store.products });
    container.register(Tokens.ReservationRepository, { useValue: store.reservations });
    container.register(Tokens.StockMovementRepository, { useValue: store.movements });
    container.register(Tokens.OutboxStore, { useValue: store.outbox });
    return;
  }
  const database = await openStockDatabase(config.databaseUrl, {
    poolSize: config.dbPoolSize,
    queryTimeoutMs: config.dbQueryTimeoutMs,
    acquireTimeoutMs: config.dbAcquireTimeoutMs,
    createDatabase: mayCreateDatabase(config),
    logger,
  });
  container.register(Tokens.Database, { useValue: database });
  container.register(Tokens.UnitOfWork, { useValue: new MikroOrmUnitOfWork(database, idempotencyTtlMs) });
  container.register(Tokens.ProductRepository, { useValue: new MikroOrmProductRepository(database.session) });
  container.register(Tokens.ReservationRepository, { useValue: new MikroOrmReservationRepository(database.session) });
  container.register(Tokens.StockMovementRepository, { useValue: new MikroOrmStockMovementRepository(database.session) });
  container.register(Tokens.OutboxStore, { useValue: new MikroOrmOutbox(database.session) });
}

/**
 * Every registration of the service, in one place. Storage is opened here (it
 * is asynchronous); everything else is built on first use. Settings are read
 * from `config` where a registration needs them; the configuration itself is
 * not in the container, since nothing would resolve it.
 */
export async function createContainer(config: StockServiceConfig, logger?: Logger): Promise<DependencyContainer> {
  const container = rootContainer.createChildContainer();
  const serviceLogger = logger ?? createLogger('stock-service', config.logLevel, config.logFormat);
  container.register(Tokens.Logger, { useValue: serviceLogger });
  await registerStorage(container, config, serviceLogger);
  if (config.amqpUrl) {
    // A unit of work that wrote events wakes this instance's relay once it commits; the relay's polling stays the guarantee.
    const unitOfWork = container.resolve(Tokens.UnitOfWork);
    container.register(Tokens.UnitOfWork, { useValue: wakingTheRelay(unitOfWork, () => container.resolve(Tokens.Messaging).wake()) });
  }
  container.register(Tokens.Clock, { useValue: () => new Date() });
  single(container, Tokens.Access, () => accessControl(tokenVerifierFor(config, serviceLogger), serviceLogger));
  const writes = (c: DependencyContainer) => [c.resolve(Tokens.UnitOfWork), c.resolve(Tokens.Clock)] as const;
  single(container, CreateProduct, (c) => new CreateProduct(...writes(c)));
  single(container, UpdateProduct, (c) => new UpdateProduct(...writes(c)));
  single(container, DeleteProduct, (c) => new DeleteProduct(c.resolve(Tokens.UnitOfWork)));
  single(container, AdjustStock, (c) => new AdjustStock(...writes(c)));
  single(container, GetProduct, (c) => new GetProduct(c.resolve(Tokens.ProductRepository)));
  single(container, GetProducts, (c) => new GetProducts(c.resolve(Tokens.ProductRepository)));
  single(container, ListProducts, (c) => new ListProducts(c.resolve(Tokens.ProductRepository)));
  single(container, StreamProducts, (c) => new StreamProducts(c.resolve(Tokens.ProductRepository)));
  single(container, ListStockMovements, (c) => new ListStockMovements(c.resolve(Tokens.ProductRepository), c.resolve(Tokens.StockMovementRepository)));
  single(container, ReserveStock, (c) => new ReserveStock(c.resolve(Tokens.UnitOfWork), { clock: c.resolve(Tokens.Clock), newId: randomUUID, defaultTtlSeconds: config.reservationTtlSeconds }));
  single(container, GetReservation, (c) => new GetReservation(c.resolve(Tokens.ReservationRepository)));
  single(container, CommitReservation, (c) => new CommitReservation(...writes(c)));
  single(container, ReleaseReservation, (c) => new ReleaseReservation(...writes(c)));
  single(container, ExpireReservations, (c) => new ExpireReservations(...writes(c)));
  const orderEvents = (c: DependencyContainer) =>
    [c.resolve(Tokens.UnitOfWork), { clock: c.resolve(Tokens.Clock), newId: randomUUID, defaultTtlSeconds: config.reservationTtlSeconds, consumer: STOCK_QUEUE }] as const;
  single(container, ReserveForOrder, (c) => new ReserveForOrder(...orderEvents(c)));
  single(container, ReleaseForOrder, (c) => new ReleaseForOrder(...orderEvents(c)));
  single(container, CommitForOrder, (c) => new CommitForOrder(...orderEvents(c)));
  if (config.amqpUrl) {
    single(container, Tokens.Messaging, (c) => {
      const useCases = { reserveForOrder: c.resolve(ReserveForOrder), releaseForOrder: c.resolve(ReleaseForOrder), commitForOrder: c.resolve(CommitForOrder) };
      const parts = { service: STOCK_QUEUE, handler: orderEventsHandler(useCases, c.resolve(Tokens.Logger)), outbox: c.resolve(Tokens.OutboxStore), logger: c.resolve(Tokens.Logger) };
      return messagingFor(config, { ...parts, registry: c.resolve(Tokens.HttpApp).metrics.registry })!;
    });
  }
  container.register(Tokens.HttpApp, {
    useFactory: instanceCachingFactory((c) => {
      const database = c.isRegistered(Tokens.Database) ? c.resolve(Tokens.Database) : undefined;
      const http = createStockApp({
        useCases: {
          createProduct: c.resolve(CreateProduct),
          getProduct: c.resolve(GetProduct),
          getProducts: c.resolve(GetProducts),
          listStockMovements: c.resolve(ListStockMovements),
          reserveStock: c.resolve(ReserveStock),
          getReservation: c.resolve(GetReservation),
          commitReservation: c.resolve(CommitReservation),
          releaseReservation: c.resolve(ReleaseReservation),
          listProducts: c.resolve(ListProducts),
          streamProducts: c.resolve(StreamProducts),
          updateProduct: c.resolve(UpdateProduct),
          deleteProduct: c.resolve(DeleteProduct),
          adjustStock: c.resolve(AdjustStock),
        },
        access: c.resolve(Tokens.Access),
        logger: c.resolve(Tokens.Logger),
        openApiFile: config.openApiFile,
        ...(database && { isReady: () => database.isReady() }),
        // Resolved when readiness is asked, after the messaging (which needs this app's metrics registry) exists.
        readinessChecks: async () => ({
          database: database ? ((await database.isReady()) ? 'up' : 'down') : 'memory',
          broker: c.isRegistered(Tokens.Messaging) ? (c.resolve(Tokens.Messaging).isConnected ? 'up' : 'down') : 'off',
        }),
      });
      if (database) http.metrics.addGauge('db_pool_connections', 'Database pool connections by state (used, free, pending acquisitions, max)', 'state', () => database.poolStats());
      return http;
    }),
  });
  return container;
}
