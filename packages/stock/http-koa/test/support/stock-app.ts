import { accessControl, listen, serve } from '@platform/http';
import { capturingLogger } from '@platform/runtime';
import {
  AdjustStock,
  CommitReservation,
  CreateProduct,
  DeleteProduct,
  ExportProducts,
  GetProduct,
  GetProducts,
  GetReservation,
  ImportProducts,
  ListProducts,
  ListStockMovements,
  Locations,
  ReleaseReservation,
  ReserveStock,
  SearchProducts,
  StockTransfers,
  StreamProducts,
  UpdateProduct,
} from '@stock/application';
import { createStockApp, type StockAppOptions } from '@stock/http-koa';
import { InMemoryStockStore } from '@stock/persistence-memory';
import { randomUUID } from 'node:crypto';
import { type ApiUnderTest, checkedApi } from './api-under-test';
import { OPENAPI_FILE } from './contract';

/** What the routers call, over one in-memory store, with the use cases' own default settings. */
export function inMemoryUseCases(store: InMemoryStockStore): StockAppOptions['useCases'] {
  const { unitOfWork, products } = store;
  const clock = () => new Date();
  const ids = { clock, newId: randomUUID };
  return {
    createProduct: new CreateProduct(unitOfWork, clock),
    updateProduct: new UpdateProduct(unitOfWork, clock),
    deleteProduct: new DeleteProduct(unitOfWork),
    adjustStock: new AdjustStock(unitOfWork, clock),
    getProduct: new GetProduct(products),
    getProducts: new GetProducts(products),
    listProducts: new ListProducts(products),
    streamProducts: new StreamProducts(products),
    searchProducts: new SearchProducts(products),
    importProducts: new ImportProducts(unitOfWork, clock),
    exportProducts: new ExportProducts(unitOfWork),
    listStockMovements: new ListStockMovements(products, store.movements),
    reserveStock: new ReserveStock(unitOfWork, { ...ids, defaultTtlSeconds: 900 }),
    getReservation: new GetReservation(store.reservations),
    commitReservation: new CommitReservation(unitOfWork, clock),
    releaseReservation: new ReleaseReservation(unitOfWork, clock),
    locations: new Locations(unitOfWork),
    stockTransfers: new StockTransfers(unitOfWork, ids),
  };
}

/**
 * The stock HTTP app alone (createStockApp, without the service around it) over an in-memory store, served on an
 * ephemeral port as the service serves it, with tokens off.
 */
export async function startStockAppUnderTest(): Promise<ApiUnderTest> {
  const logs: Record<string, unknown>[] = [];
  const logger = capturingLogger('stock-service', logs);
  const store = new InMemoryStockStore({ idempotencyTtlMs: 24 * 3_600_000 });
  const http = createStockApp({
    useCases: inMemoryUseCases(store),
    access: accessControl(undefined, logger),
    logger,
    openApiFile: OPENAPI_FILE,
    readinessChecks: async () => ({ database: 'memory', broker: 'off' }),
  });
  const listener = await listen({ port: 0, host: '127.0.0.1', requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 });
  const server = serve(listener, http, { shutdownDelayMs: 0, shutdownGraceMs: 1_000 }, logger);
  return checkedApi(listener.url, logs, async () => void (await server.close({ immediate: true })));
}
