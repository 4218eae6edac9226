import { capturingLogger } from '@platform/runtime';
import { type Backend, openApiContract, scratchDatabaseFor } from '@platform/test-kit';
import { DEFAULT_CONFIG as STOCK_DEFAULTS, type RunningStockService, startStockService } from '@stock/service';
import { join } from 'node:path';
import {
  DEFAULT_CONFIG,
  type RunningSalesService,
  type SalesServiceConfig,
  type StartOptions,
  startSalesService,
} from '../src';

export type { Backend };

/** This workspace's sales contract, which main.ts hands the service. */
export const SALES_OPENAPI_FILE = join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'sales.openapi.yaml');

const contract = openApiContract(SALES_OPENAPI_FILE);
export const salesOpenApi = contract.document;
/** Throws unless a response is what docs/sales.openapi.yaml says it can be (@platform/test-kit's openApiContract). */
export const assertMatchesSalesContract = contract.assertMatches;

export interface SalesUnderTest {
  readonly service: RunningSalesService;
  readonly logs: Record<string, unknown>[];
  /** fetch() against the service; throws if the response breaks docs/sales.openapi.yaml. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** A JSON request, its body parsed. */
  json<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; body: T }>;
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
      port: 0,
      host: '127.0.0.1',
      databaseUrl: database.url,
      dbCreateDatabase: 'true',
      shutdownDelayMs: 0,
      openApiFile: SALES_OPENAPI_FILE,
      ...config,
    },
    { logger: capturingLogger('sales-service', logs), ...options },
  );
  const request = async (path: string, init?: RequestInit) => {
    const response = await fetch(`${service.url}${path}`, init);
    await contract.assertMatches(init?.method ?? 'GET', `${service.url}${path}`, response, init?.headers);
    return response;
  };
  return {
    service,
    logs,
    request,
    async json(method, path, body, headers = {}) {
      const response = await request(path, {
        method,
        headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: (text ? JSON.parse(text) : undefined) as never,
      };
    },
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
    port: 0,
    host: '127.0.0.1',
    databaseUrl: 'memory:',
    shutdownDelayMs: 0,
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
