import 'reflect-metadata';
import { bind, createServiceContainer, single } from '@platform/http/service';
import type { ServiceRoot, ServiceStorage } from '@platform/http/service';
import type { Logger } from '@platform/runtime';
import {
  AdjustStock,
  CommitForOrder,
  CommitReservation,
  CreateProduct,
  DeleteProduct,
  ExpireReservations,
  ExportProducts,
  GetProduct,
  GetProducts,
  GetReservation,
  ImportProducts,
  DEFAULT_IMPORT_SETTINGS,
  ListProducts,
  ListStockMovements,
  Locations,
  ReleaseForOrder,
  ReleaseReservation,
  ReserveForOrder,
  ReserveStock,
  SearchProducts,
  StockTransfers,
  StreamProducts,
  UpdateProduct,
} from '@stock/application';
import type { StockTransaction } from '@stock/domain';
import { createStockApp } from '@stock/http-koa';
import { orderEventsHandler, STOCK_QUEUE } from './order-events-handler';
import { InMemoryStockStore, InMemoryWebhookStore } from '@stock/persistence-memory';
import {
  MikroOrmWebhookStore,
  openStockDatabase,
  SqlProductRepository,
  SqlReservationRepository,
  SqlStockMovementRepository,
  SqlUnitOfWork,
} from '@stock/persistence-sql';
import { currentTraceId } from '@platform/runtime';
import { randomUUID } from 'node:crypto';
import type { DependencyContainer } from 'tsyringe';
import { DEFAULT_DATABASE_URL, type StockServiceConfig } from './config';
import { Tokens } from './tokens';
import { registerWebhooks, routeWebhooks, webhooksOn } from './webhooks';

const MESSAGING_OFF =
  'messaging is off (AMQP_URL is not set): order events are neither consumed nor published; they wait in the outbox';

const STORAGE: ServiceStorage<StockTransaction> = {
  defaultDatabaseUrl: DEFAULT_DATABASE_URL,
  memory(idempotencyTtlMs) {
    // Each movement records the trace it was made in (OpenTelemetry's, when tracing is on).
    const store = new InMemoryStockStore({ idempotencyTtlMs, traceId: currentTraceId });
    const repositories = [
      bind(Tokens.ProductRepository, store.products),
      bind(Tokens.ReservationRepository, store.reservations),
      bind(Tokens.StockMovementRepository, store.movements),
      bind(Tokens.WebhookStore, new InMemoryWebhookStore(store.outboxRows)),
    ];
    return { unitOfWork: store.unitOfWork, outbox: store.outbox, repositories };
  },
  open: openStockDatabase,
  database: (database, idempotencyTtlMs) => ({
    unitOfWork: new SqlUnitOfWork(database, idempotencyTtlMs, undefined, undefined, currentTraceId),
    repositories: [
      bind(Tokens.ProductRepository, new SqlProductRepository(database.session)),
      bind(Tokens.ReservationRepository, new SqlReservationRepository(database.session)),
      bind(Tokens.StockMovementRepository, new SqlStockMovementRepository(database.session)),
      bind(Tokens.WebhookStore, new MikroOrmWebhookStore(database)),
    ],
  }),
};

function registerUseCases(container: DependencyContainer, config: StockServiceConfig): void {
  // Every use case that moves stock decides low-stock crossings with the same hysteresis, and writes the events for
  // webhooks (one per ledger movement, every hold) when they are on.
  const stockChanges = { lowStockHysteresis: config.lowStockHysteresis, webhookEvents: webhooksOn(config) };
  const writes = (c: DependencyContainer) => [c.resolve(Tokens.UnitOfWork), c.resolve(Tokens.Clock)] as const;
  const changes = (c: DependencyContainer) => [...writes(c), stockChanges] as const;
  const products = (c: DependencyContainer) => c.resolve(Tokens.ProductRepository);
  single(container, CreateProduct, (c) => new CreateProduct(...changes(c)));
  single(container, UpdateProduct, (c) => new UpdateProduct(...changes(c)));
  single(container, DeleteProduct, (c) => new DeleteProduct(c.resolve(Tokens.UnitOfWork)));
  single(container, AdjustStock, (c) => new AdjustStock(...changes(c)));
  single(container, GetProduct, (c) => new GetProduct(products(c)));
  single(container, GetProducts, (c) => new GetProducts(products(c)));
  single(container, ListProducts, (c) => new ListProducts(products(c)));
  single(container, StreamProducts, (c) => new StreamProducts(products(c)));
  single(container, SearchProducts, (c) => new SearchProducts(products(c)));
  const imports = { ...DEFAULT_IMPORT_SETTINGS, ...stockChanges };
  single(container, ImportProducts, (c) => new ImportProducts(...writes(c), imports));
  single(container, ExportProducts, (c) => new ExportProducts(c.resolve(Tokens.UnitOfWork)));
  const movements = (c: DependencyContainer) => c.resolve(Tokens.StockMovementRepository);
  single(container, ListStockMovements, (c) => new ListStockMovements(products(c), movements(c)));
  const holds = (c: DependencyContainer) => ({
    clock: c.resolve(Tokens.Clock),
    newId: randomUUID,
    defaultTtlSeconds: config.reservationTtlSeconds,
    allocation: config.reservationAllocation,
    ...stockChanges,
  });
  single(container, ReserveStock, (c) => new ReserveStock(c.resolve(Tokens.UnitOfWork), holds(c)));
  single(container, GetReservation, (c) => new GetReservation(c.resolve(Tokens.ReservationRepository)));
  single(container, CommitReservation, (c) => new CommitReservation(...changes(c)));
  single(container, ReleaseReservation, (c) => new ReleaseReservation(...changes(c)));
  single(container, ExpireReservations, (c) => new ExpireReservations(...changes(c)));
  single(container, Locations, (c) => new Locations(c.resolve(Tokens.UnitOfWork)));
  single(
    container,
    StockTransfers,
    (c) =>
      new StockTransfers(c.resolve(Tokens.UnitOfWork), {
        clock: c.resolve(Tokens.Clock),
        newId: randomUUID,
        ...stockChanges,
      }),
  );
  const forOrders = (c: DependencyContainer) =>
    [c.resolve(Tokens.UnitOfWork), { ...holds(c), consumer: STOCK_QUEUE }] as const;
  single(container, ReserveForOrder, (c) => new ReserveForOrder(...forOrders(c)));
  single(container, ReleaseForOrder, (c) => new ReleaseForOrder(...forOrders(c)));
  single(container, CommitForOrder, (c) => new CommitForOrder(...forOrders(c)));
}

/** Sales' order events, handled by the use cases that hold, release and commit stock for an order. */
function orderEvents(c: DependencyContainer) {
  const useCases = {
    reserveForOrder: c.resolve(ReserveForOrder),
    releaseForOrder: c.resolve(ReleaseForOrder),
    commitForOrder: c.resolve(CommitForOrder),
  };
  return orderEventsHandler(useCases, c.resolve(Tokens.Logger));
}

/** What the stock service wires for itself; the platform wires storage, the relay, readiness, metrics and messaging. */
export function stockRoot(config: StockServiceConfig): ServiceRoot<StockTransaction> {
  return {
    name: 'stock-service',
    storage: STORAGE,
    register: (container) => {
      registerUseCases(container, config);
      registerWebhooks(container, config);
    },
    messaging: { queue: STOCK_QUEUE, handler: orderEvents, off: MESSAGING_OFF },
    http: (c, health) =>
      routeWebhooks(
        createStockApp({
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
            searchProducts: c.resolve(SearchProducts),
            importProducts: c.resolve(ImportProducts),
            exportProducts: c.resolve(ExportProducts),
            updateProduct: c.resolve(UpdateProduct),
            deleteProduct: c.resolve(DeleteProduct),
            adjustStock: c.resolve(AdjustStock),
            locations: c.resolve(Locations),
            stockTransfers: c.resolve(StockTransfers),
          },
          access: c.resolve(Tokens.Access),
          logger: c.resolve(Tokens.Logger),
          openApiFile: config.openApiFile,
          ...health,
        }),
        c,
        c.resolve(Tokens.Access),
      ),
  };
}

/** Every registration of the service: the platform's shape (createServiceContainer) with stock's own parts. */
export function createContainer(config: StockServiceConfig, logger?: Logger): Promise<DependencyContainer> {
  return createServiceContainer(config, stockRoot(config), logger);
}
