import { Scopes } from '@commerce/contracts';
import { accessControl, listen, serve } from '@platform/http';
import { capturingLogger } from '@platform/runtime';
import * as application from '@stock/application';
import { createStockApp, type StockAppOptions, webhookSubscriptionsRouter } from '@stock/http-koa';
import { InMemoryStockStore, InMemoryWebhookStore } from '@stock/persistence-memory';
import { randomBytes, randomUUID } from 'node:crypto';
import { type ApiUnderTest, checkedApi, orderFlowOf } from './api-under-test';
import { OPENAPI_FILE } from './contract';

/** What the routers call, over one in-memory store, with the use cases' own default settings. */
export function inMemoryUseCases(store: InMemoryStockStore): StockAppOptions['useCases'] {
  const { unitOfWork, products } = store;
  const clock = () => new Date();
  const ids = { clock, newId: randomUUID };
  return {
    createProduct: new application.CreateProduct(unitOfWork, clock),
    updateProduct: new application.UpdateProduct(unitOfWork, clock),
    deleteProduct: new application.DeleteProduct(unitOfWork),
    adjustStock: new application.AdjustStock(unitOfWork, clock),
    changeStockState: new application.ChangeStockState(unitOfWork, clock),
    getProduct: new application.GetProduct(products),
    getProducts: new application.GetProducts(products),
    listProducts: new application.ListProducts(products),
    streamProducts: new application.StreamProducts(products),
    searchProducts: new application.SearchProducts(products),
    importProducts: new application.ImportProducts(unitOfWork, clock),
    exportProducts: new application.ExportProducts(unitOfWork),
    listStockMovements: new application.ListStockMovements(products, store.movements),
    reserveStock: new application.ReserveStock(unitOfWork, { ...ids, defaultTtlSeconds: 900 }),
    getReservation: new application.GetReservation(store.reservations),
    commitReservation: new application.CommitReservation(unitOfWork, clock),
    releaseReservation: new application.ReleaseReservation(unitOfWork, clock),
    locations: new application.Locations(unitOfWork),
    stockTransfers: new application.StockTransfers(unitOfWork, ids),
    shipOrder: new application.ShipOrder(unitOfWork, ids),
    getShipment: new application.GetShipment(store.shipments),
    listShipments: new application.ListShipments(store.shipments),
    receiveReturn: new application.ReceiveReturn(unitOfWork, ids),
    getReturn: new application.GetReturn(store.returns),
    listReturns: new application.ListReturns(store.returns),
  };
}

/** What stock's queue hands sales' order events to, over the same store. */
function orderUseCases(store: InMemoryStockStore) {
  const settings = {
    clock: () => new Date(),
    newId: randomUUID,
    defaultTtlSeconds: 900,
    consumer: 'stock-service',
    shippedOf: application.shippedOfOrder,
  };
  return {
    reserveForOrder: new application.ReserveForOrder(store.unitOfWork, settings),
    commitForOrder: new application.CommitForOrder(store.unitOfWork, settings),
    releaseForOrder: new application.ReleaseForOrder(store.unitOfWork, settings),
  };
}

/**
 * The stock HTTP app alone (createStockApp, without the service around it) over an in-memory store, served on an
 * ephemeral port as the service serves it, with tokens off.
 */
export const startStockAppUnderTest = () => startApp({ webhooks: false });

/** The same, with the webhook subscriptions' router mounted, as the service mounts it with WEBHOOKS=on. */
export const startStockAppWithWebhooks = () => startApp({ webhooks: true });

async function startApp({ webhooks }: { readonly webhooks: boolean }): Promise<ApiUnderTest> {
  const logs: Record<string, unknown>[] = [];
  const logger = capturingLogger('stock-service', logs);
  const store = new InMemoryStockStore({ idempotencyTtlMs: 24 * 3_600_000 });
  const access = accessControl(undefined, logger);
  const http = createStockApp({
    useCases: inMemoryUseCases(store),
    access,
    logger,
    openApiFile: OPENAPI_FILE,
    readinessChecks: async () => ({ database: 'memory', broker: 'off' }),
  });
  if (webhooks) {
    const subscriptions = new application.WebhookSubscriptions({
      store: new InMemoryWebhookStore(store.outboxRows),
      secrets: new application.SecretBox(application.parseSecretsKey(randomBytes(32).toString('base64'))),
      allowPrivateTargets: true,
    });
    http.route(webhookSubscriptionsRouter({ subscriptions, access, scope: Scopes.stock.webhooks }));
  }
  const listener = await listen({ port: 0, host: '127.0.0.1', requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 });
  const server = serve(listener, http, { shutdownDelayMs: 0, shutdownGraceMs: 1_000 }, logger);
  const stop = async () => void (await server.close({ immediate: true }));
  return checkedApi(listener.url, logs, stop, orderFlowOf(orderUseCases(store)));
}
