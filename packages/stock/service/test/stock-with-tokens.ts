import { capturingLogger } from '@platform/runtime';
import {
  CLIENTS,
  type IdentityUnderTest,
  requestToken,
  STOCK,
  scratchFolder,
  startIdentity,
} from '@commerce/identity/testing';
import { type Backend, scratchDatabaseFor } from '@platform/test-kit';
import { writeFileSync } from 'node:fs';
import { DEFAULT_CONFIG, type RunningStockService, startStockService } from '../src';
import { OPENAPI_FILE } from '@stock/http-koa/testing';

type Client = (typeof CLIENTS)[number];

/** Two integrations with the same scopes, `${name}-a` and `${name}-b`: two token subjects the tests tell apart. */
export function twoClients(name: string, scopes: readonly string[]): readonly Client[] {
  return ['a', 'b'].map((which) => {
    const clientId = `${name}-${which}`;
    return { clientId, clientSecret: `${clientId}-secret-`.padEnd(40, '0123456789abcdefghijklmnopqrstuvwxyz'), scopes };
  });
}

export interface StockWithTokens {
  readonly identity: IdentityUnderTest;
  readonly stock: RunningStockService;
  /** Each of the asked clients' access token for stock's audience, by client id. */
  readonly tokens: ReadonlyMap<string, string>;
  close(): Promise<void>;
}

/**
 * A real identity service that also knows `extraClients`, and a stock service
 * on `backend` that checks its tokens; answers a token for each of `tokenFor`,
 * with every scope the client holds.
 */
export async function startStockWithTokens(
  context: Mocha.Context,
  backend: Backend,
  extraClients: readonly Client[],
  tokenFor: readonly Client[],
): Promise<StockWithTokens> {
  const database = await scratchDatabaseFor(backend, context, 'stock');
  const files = scratchFolder();
  writeFileSync(files.clientsFile, JSON.stringify([...CLIENTS, ...extraClients]), { mode: 0o600 });
  const identity = await startIdentity(files);
  const stock = await startStockService(
    {
      ...DEFAULT_CONFIG,
      port: 0,
      host: '127.0.0.1',
      databaseUrl: database.url,
      dbCreateDatabase: 'true',
      shutdownDelayMs: 0,
      authIssuer: identity.service.issuer,
      openApiFile: OPENAPI_FILE,
    },
    { logger: capturingLogger('stock-service', []) },
  );
  const tokens = new Map<string, string>();
  for (const client of tokenFor) {
    const response = await requestToken(`${identity.service.issuer}/token`, client, {
      resource: STOCK,
      scope: client.scopes.join(' '),
    });
    tokens.set(client.clientId, ((await response.json()) as { access_token: string }).access_token);
  }
  return {
    identity,
    stock,
    tokens,
    async close() {
      await stock.close({ immediate: true });
      await identity.stop();
      files.remove();
      await database.cleanUp();
    },
  };
}
