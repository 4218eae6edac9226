import { capturingLogger as capture, type Logger } from '@platform/runtime';
import { type Backend, scratchDatabaseFor } from '@platform/test-kit';
import { type ApiUnderTest, checkedApi, OPENAPI_FILE, orderFlowOf } from '@stock/http-koa/testing';
import { randomBytes } from 'node:crypto';
import { Receiver } from './webhooks/receiver';
import {
  DEFAULT_CONFIG,
  type RunningStockService,
  type StartOptions,
  type StockServiceConfig,
  startStockService,
} from '../src';
import { Tokens } from '../src/tokens';

export type { Backend };

/** Webhooks on, with a fresh key, loopback receivers allowed, and a worker that polls often. */
export const WEBHOOKS_ON = {
  webhooks: 'on',
  webhookSecretsKey: randomBytes(32).toString('base64'),
  webhookAllowPrivateTargets: 'true',
  webhookPollMs: 20,
} as const;
export { json } from '@stock/http-koa/testing';

/** The whole service, with the HTTP suites' ApiUnderTest over it (every response checked against docs/openapi.yaml). */
export interface ServiceUnderTest extends ApiUnderTest {
  readonly service: RunningStockService;
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
  const stop = async () => {
    await service.close({ immediate: true });
    await database.cleanUp();
  };
  const orders = orderFlowOf(service.container.resolve(Tokens.UseCases));
  return { service, ...checkedApi(service.url, logs, stop, orders) };
}

/** For each test of the calling describe: the whole service with WEBHOOKS_ON on `backend`, and a loopback receiver. */
export function eachWithWebhooks(backend: Backend): { readonly stock: ServiceUnderTest; readonly receiver: Receiver } {
  const parts = {} as { stock: ServiceUnderTest; receiver: Receiver };
  beforeEach(async function () {
    parts.stock = await startServiceUnderTest(backend, this, {}, WEBHOOKS_ON);
    parts.receiver = await new Receiver().start();
  });
  afterEach(async () => {
    await parts.stock?.stop();
    await parts.receiver?.stop();
  });
  return parts;
}
