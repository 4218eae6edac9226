import { capturingLogger as capture, type Logger } from '@platform/runtime';
import { type Backend, rawHttpRequest, scratchDatabaseFor } from '@platform/test-kit';
import { assertMatchesContract } from './openapi-contract';
import { OPENAPI_FILE } from './workspace-files';
import {
  DEFAULT_CONFIG,
  type RunningStockService,
  type StartOptions,
  type StockServiceConfig,
  startStockService,
} from '../src';

export type { Backend };

export interface ServiceUnderTest {
  readonly service: RunningStockService;
  /** Every log line the service wrote, parsed. */
  readonly logs: Record<string, unknown>[];
  /** fetch() against the service; throws if the response breaks docs/openapi.yaml. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /**
   * A request fetch would not send (its own Transfer-Encoding…), on a connection the server closes; checked against
   * docs/openapi.yaml too.
   */
  raw(method: string, path: string, headers: Record<string, string>, ...body: (string | Buffer)[]): Promise<Response>;
  stop(): Promise<void>;
}

/** A log transport that keeps parsed lines in memory, for assertions. */
export function capturingLogger(logs: Record<string, unknown>[]): Logger {
  return capture('stock-service', logs);
}

/** Starts the whole service, as main does, on an ephemeral port and a fresh database. */
export async function startServiceUnderTest(
  backend: Backend,
  context: Mocha.Context,
  options: StartOptions = {},
  /** Settings on top of the defaults (webhooks on, their key). */
  settings: Partial<StockServiceConfig> = {},
): Promise<ServiceUnderTest> {
  const database = await scratchDatabaseFor(backend, context, 'stock');
  const logs: Record<string, unknown>[] = [];
  const service = await startStockService(
    {
      ...DEFAULT_CONFIG,
      port: 0,
      databaseUrl: database.url,
      dbCreateDatabase: 'true',
      openApiFile: OPENAPI_FILE,
      ...settings,
    },
    { logger: capturingLogger(logs), ...options },
  );
  return {
    service,
    logs,
    async request(path, init) {
      const response = await fetch(`${service.url}${path}`, init);
      await assertMatchesContract(init?.method ?? 'GET', `${service.url}${path}`, response, init?.headers);
      return response;
    },
    async raw(method, path, headers, ...body) {
      const head = Object.entries({ Host: 'test', Connection: 'close', ...headers })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      const {
        status,
        headers: answered,
        body: text,
      } = await rawHttpRequest(service.url, `${method} ${path} HTTP/1.1\r\n${head}\r\n`, ...body);
      const response = new Response(status === 204 || status === 304 ? null : text, { status, headers: answered });
      await assertMatchesContract(method, `${service.url}${path}`, response, headers);
      return response;
    },
    async stop() {
      await service.close({ immediate: true });
      await database.cleanUp();
    },
  };
}

export function json(body: unknown, init: RequestInit = {}): RequestInit {
  return {
    method: 'POST',
    ...init,
    headers: { 'content-type': 'application/json', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}
