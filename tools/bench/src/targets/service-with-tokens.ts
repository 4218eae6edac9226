import { Apis, scopesOf } from '@commerce/contracts';
import { startIdentityService, DEFAULT_CONFIG as IDENTITY_DEFAULTS } from '@commerce/identity';
import { createLogger, runMain } from '@platform/runtime';
import { loadConfig, startStockService } from '@stock/service';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The stock service as `pnpm start` runs it, with tokens checked: an issuer
 * runs beside it (in this process, idle once the service has its keys), and
 * the harness sends every request with a token from it, for the price of
 * verifying an ES256 JWT on each.
 */
await runMain('stock service with tokens', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'bench-identity-'));
  const client = { clientId: 'bench', clientSecret: randomBytes(32).toString('base64url'), scopes: scopesOf('stock') };
  writeFileSync(join(folder, 'clients.json'), JSON.stringify([client]), { mode: 0o600 });
  const quiet = createLogger('identity', 'warn');
  const identity = await startIdentityService(
    {
      ...IDENTITY_DEFAULTS,
      port: 0,
      host: '127.0.0.1',
      clientsFile: join(folder, 'clients.json'),
      keysFile: join(folder, 'keys.json'),
      accessTokenTtlSeconds: 3600,
    },
    { logger: quiet },
  );
  const service = await startStockService({ ...loadConfig(), authIssuer: identity.issuer });
  const response = await fetch(`${identity.issuer}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: Apis.stock.audience }),
  });
  const { access_token: token } = (await response.json()) as { access_token: string };
  console.log(JSON.stringify({ message: 'listening', port: service.port, token, issuer: identity.issuer }));
  return {
    logger: service.logger,
    close: async () => {
      await service.close({ immediate: true });
      await identity.close({ immediate: true });
    },
  };
});
