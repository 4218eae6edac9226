import 'reflect-metadata';
import { bind, createServiceContainer, single } from '@platform/http/service';
import type { ServiceRoot, ServiceStorage } from '@platform/http/service';
import { currentTraceId, type Logger } from '@platform/runtime';
import type { StockTransaction } from '@stock/domain';
import { createStockApp } from '@stock/http-koa';
import { InMemoryStockStore, InMemoryWebhookStore } from '@stock/persistence-memory';
import {
  MikroOrmWebhookStore,
  openStockDatabase,
  SqlProductRepository,
  SqlReservationRepository,
  SqlReturnRepository,
  SqlShipmentRepository,
  SqlStockMovementRepository,
  SqlUnitOfWork,
} from '@stock/persistence-sql';
import type { DependencyContainer } from 'tsyringe';
import { DEFAULT_DATABASE_URL, type StockServiceConfig } from './config';
import { orderEventsHandler, STOCK_QUEUE } from './order-events-handler';
import { Tokens } from './tokens';
import { stockUseCases } from './use-cases';
import { registerWebhooks, routeWebhooks, webhooksOn } from './webhooks';

const MESSAGING_OFF =
  'messaging is off (AMQP_URL is not set): order events are neither consumed nor published; they wait in the outbox';

// Each movement records the trace it was made in (OpenTelemetry's, when tracing is on).
const STORAGE: ServiceStorage<StockTransaction> = {
  defaultDatabaseUrl: DEFAULT_DATABASE_URL,
  memory(idempotencyTtlMs) {
    const store = new InMemoryStockStore({ idempotencyTtlMs, traceId: currentTraceId });
    const repositories = [
      bind(Tokens.ProductRepository, store.products),
      bind(Tokens.ReservationRepository, store.reservations),
      bind(Tokens.StockMovementRepository, store.movements),
      bind(Tokens.ShipmentRepository, store.shipments),
      bind(Tokens.ReturnRepository, store.returns),
      bind(Tokens.WebhookStore, new InMemoryWebhookStore(store.outboxRows)),
    ];
    return { unitOfWork: store.unitOfWork, outbox: store.outbox, repositories };
  },
  open: openStockDatabase,
  database: (database, idempotencyTtlMs) => ({
    unitOfWork: new SqlUnitOfWork(database, { idempotencyTtlMs, traceId: currentTraceId }),
    repositories: [
      bind(Tokens.ProductRepository, new SqlProductRepository(database.session)),
      bind(Tokens.ReservationRepository, new SqlReservationRepository(database.session)),
      bind(Tokens.StockMovementRepository, new SqlStockMovementRepository(database.session)),
      bind(Tokens.ShipmentRepository, new SqlShipmentRepository(database.session)),
      bind(Tokens.ReturnRepository, new SqlReturnRepository(database.session)),
      bind(Tokens.WebhookStore, new MikroOrmWebhookStore(database)),
    ],
  }),
};

/** What the stock service wires for itself; the platform wires storage, the relay, readiness, metrics and messaging. */
export function stockRoot(config: StockServiceConfig): ServiceRoot<StockTransaction> {
  return {
    name: 'stock-service',
    storage: STORAGE,
    register: (container) => {
      single(container, Tokens.UseCases, (c) =>
        stockUseCases(
          {
            unitOfWork: c.resolve(Tokens.UnitOfWork),
            clock: c.resolve(Tokens.Clock),
            products: c.resolve(Tokens.ProductRepository),
            reservations: c.resolve(Tokens.ReservationRepository),
            movements: c.resolve(Tokens.StockMovementRepository),
            shipments: c.resolve(Tokens.ShipmentRepository),
            returns: c.resolve(Tokens.ReturnRepository),
          },
          { ...config, webhookEvents: webhooksOn(config), consumer: STOCK_QUEUE },
        ),
      );
      registerWebhooks(container, config);
    },
    messaging: {
      queue: STOCK_QUEUE,
      off: MESSAGING_OFF,
      // Sales' order events, handled by the use cases that hold, release and commit stock for an order.
      handler: (c) => orderEventsHandler(c.resolve(Tokens.UseCases), c.resolve(Tokens.Logger)),
    },
    http: (c, health) => {
      const access = c.resolve(Tokens.Access);
      const app = createStockApp({
        useCases: c.resolve(Tokens.UseCases),
        access,
        logger: c.resolve(Tokens.Logger),
        openApiFile: config.openApiFile,
        ...health,
      });
      return routeWebhooks(app, c, access);
    },
  };
}

/** Every registration of the service: the platform's shape (createServiceContainer) with stock's own parts. */
export function createContainer(config: StockServiceConfig, logger?: Logger): Promise<DependencyContainer> {
  return createServiceContainer(config, stockRoot(config), logger);
}
