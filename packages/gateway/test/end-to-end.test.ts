import { capturingLogger } from '@platform/runtime';
import {
  CLIENTS,
  callWith,
  decodePart,
  type IdentityUnderTest,
  requestToken,
  SALES,
  STOCK,
  scratchFolder,
  startIdentity,
  tokenChecksContract,
} from '@commerce/identity/testing';
import { DEFAULT_CONFIG as SALES_DEFAULTS, type RunningSalesService, startSalesService } from '@sales/service';
import { DEFAULT_CONFIG as STOCK_DEFAULTS, type RunningStockService, startStockService } from '@stock/service';
import { freePort, IN_THIS_PROCESS } from '@platform/test-kit';
import { expect } from 'chai';
import { type GatewayUnderTest, startTestGateway } from './support';

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** The stock service in memory, checking tokens, as the gateway's upstream. */
function startGuardedStock(
  issuer: string,
  logs: Record<string, unknown>[] = [],
  authDiscoveryUrl = '',
): Promise<RunningStockService> {
  return startStockService(
    {
      ...STOCK_DEFAULTS,
      ...IN_THIS_PROCESS,
      authIssuer: issuer,
      authDiscoveryUrl,
    },
    { logger: capturingLogger('stock-service', logs) },
  );
}

// Every token case through the gateway to the real stock service: the edge lets a sales token or a token without
// the scope through (it checks either audience and no scope), and stock refuses it behind it: 401 and 403 pass back as
// they are.
tokenChecksContract(
  'the gateway in front of the stock service',
  { otherAudience: { client: 'checkout', audience: SALES, scope: 'orders:write' }, scopes: true },
  async (identity) => {
    const stock = await startGuardedStock(identity.service.issuer);
    const gateway = await startTestGateway({
      stockUrl: [stock.url],
      salesUrl: [stock.url],
      identityUrl: [identity.service.url],
      authIssuer: identity.service.issuer,
    });
    return {
      call: (token) => callWith(`${gateway.url}/api/products`, token),
      good: { client: 'inventory-sync', audience: STOCK, scope: 'stock:read' },
      needsAnotherScope: (token) => callWith(`${gateway.url}/api/products`, token, json({ name: 'Lamp', price: 1 })),
      close: async () => {
        await gateway.stop();
        await stock.close({ immediate: true });
      },
    };
  },
);

describe('the gateway in front of identity, stock and sales, as start:system runs them', function () {
  this.timeout(30_000);
  let files: ReturnType<typeof scratchFolder>;
  let identity: IdentityUnderTest;
  let stock: RunningStockService;
  let sales: RunningSalesService;
  let gateway: GatewayUnderTest;
  let issuer: string;
  const stockLogs: Record<string, unknown>[] = [];
  const checkout = CLIENTS.find((client) => client.clientId === 'checkout')!;
  /** A token through the gateway's /identity/token, as a client outside gets one. */
  const tokenThroughGateway = async (clientId: string, resource: string) => {
    const response = await requestToken(
      `${gateway.url}/identity/token`,
      CLIENTS.find((client) => client.clientId === clientId)!,
      { resource },
    );
    return ((await response.json()) as { access_token: string }).access_token;
  };

  before(async () => {
    files = scratchFolder();
    // Tokens name the gateway's /identity as their issuer; the services read the issuer's metadata at its own address.
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}/identity`;
    identity = await startIdentity(files, { issuer, trustProxy: 'true' });
    const authDiscoveryUrl = `${identity.service.url}/identity/.well-known/openid-configuration`;
    stock = await startGuardedStock(issuer, stockLogs, authDiscoveryUrl);
    sales = await startSalesService(
      {
        ...SALES_DEFAULTS,
        ...IN_THIS_PROCESS,
        authIssuer: issuer,
        authDiscoveryUrl,
        stockUrl: stock.url,
        stockClientId: checkout.clientId,
        stockClientSecret: checkout.clientSecret,
      },
      { logger: capturingLogger('sales-service', []) },
    );
    gateway = await startTestGateway({
      port,
      stockUrl: [stock.url],
      salesUrl: [sales.url],
      identityUrl: [identity.service.url],
      authIssuer: issuer,
      authDiscoveryUrl,
    });
  });
  after(async () => {
    await gateway?.stop();
    await sales?.close({ immediate: true });
    await stock?.close({ immediate: true });
    await identity?.stop();
    files?.remove();
  });

  const requestLines = (logs: Record<string, unknown>[], requestId: string) =>
    logs.filter((line) => line.message === 'request' && line.requestId === requestId);

  it('writes the same request id in the gateway’s log line and the service’s: the client’s, or the one the gateway made', async () => {
    const token = await tokenThroughGateway('inventory-sync', STOCK);
    const given = await callWith(`${gateway.url}/api/products?limit=1`, token, {
      headers: { 'x-request-id': 'trace-e2e-1' },
    });
    expect(given.status).to.equal(200);
    expect(requestLines(gateway.logs, 'trace-e2e-1').map((line) => [line.path, line.status])).to.deep.equal([
      ['/api/products', 200],
    ]);
    expect(requestLines(stockLogs, 'trace-e2e-1').map((line) => [line.path, line.status])).to.deep.equal([
      ['/api/products', 200],
    ]);

    const made = await callWith(`${gateway.url}/api/products/424242`, token);
    expect(made.status).to.equal(404);
    const id = made.headers.get('x-request-id')!;
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    expect(requestLines(gateway.logs, id).map((line) => line.status)).to.deep.equal([404]);
    expect(requestLines(stockLogs, id).map((line) => line.status)).to.deep.equal([404]);
  });

  it('places an order with tokens checked at every hop: sales calls stock with its own stock token, got from the issuer directly, never the buyer’s', async () => {
    const writer = await tokenThroughGateway('inventory-sync', STOCK);
    const product = (await (
      await callWith(`${gateway.url}/api/products`, writer, json({ name: 'Lamp', price: 12.5, quantityInStock: 3 }))
    ).json()) as { id: number };
    const buyer = await tokenThroughGateway('buyer-a', SALES);
    expect(decodePart(buyer, 1)).to.include({ iss: issuer, aud: SALES });
    const tokenRequestsBefore = gateway.logs.filter(
      (line) => line.message === 'request' && line.path === '/identity/token',
    ).length;

    const placed = await callWith(
      `${gateway.url}/api/orders`,
      buyer,
      json({ lines: [{ productId: product.id, quantity: 1 }] }),
    );
    expect(placed.status).to.equal(202);
    expect(await placed.json()).to.include({ buyer: 'buyer-a', status: 'pending' });
    // Stock verifies its own audience: the buyer's sales token would have been a 401 there, and the order a 503.
    const stockReads = stockLogs.filter(
      (line) => line.message === 'request' && line.path === '/api/products' && line.status === 200,
    );
    expect(stockReads.length).to.be.greaterThan(0);
    const issuedForStock = identity.logs.filter(
      (line) => line.message === 'access token issued' && line.clientId === 'checkout',
    );
    expect(issuedForStock.map((line) => [line.resource, line.scope])).to.deep.equal([[STOCK, 'stock:read']]);
    expect(
      gateway.logs.filter((line) => line.message === 'request' && line.path === '/identity/token').length,
      'sales did not get its token through the gateway',
    ).to.equal(tokenRequestsBefore);
  });
});

describe('the services and the gateway with AUTH_ISSUER unset', function () {
  this.timeout(30_000);

  it('run open, and each says so at start in one warning, not one a request', async () => {
    const logs = { stock: [] as Record<string, unknown>[], sales: [] as Record<string, unknown>[] };
    const stock = await startStockService(
      { ...STOCK_DEFAULTS, ...IN_THIS_PROCESS },
      { logger: capturingLogger('stock-service', logs.stock) },
    );
    const sales = await startSalesService(
      {
        ...SALES_DEFAULTS,
        ...IN_THIS_PROCESS,
        stockUrl: stock.url,
      },
      { logger: capturingLogger('sales-service', logs.sales) },
    );
    const gateway = await startTestGateway({ stockUrl: [stock.url], salesUrl: [sales.url], identityUrl: [stock.url] });
    const warnings = () => ({
      stock: logs.stock.filter((line) => line.level === 'warn').map((line) => line.message),
      sales: logs.sales.filter((line) => line.level === 'warn').map((line) => line.message),
      gateway: gateway.logs.filter((line) => line.level === 'warn').map((line) => line.message),
    });
    const expected = {
      stock: ['access tokens are not checked: AUTH_ISSUER is not set, so every caller may do everything'],
      sales: [
        'access tokens are not checked: AUTH_ISSUER is not set, so every caller may do everything',
        // Run without a payment provider, sales says that once too.
        'payments are off (PAYMENTS_API_KEY and PAYMENTS_WEBHOOK_SECRET are not set): orders are held but never authorised, so never paid; webhooks answer 503',
      ],
      gateway: ['tokens are not checked at the edge: AUTH_ISSUER is not set (the services may still check them)'],
    };
    try {
      expect(warnings(), 'at start, before any request').to.deep.equal(expected);
      const product = (await (
        await fetch(`${gateway.url}/api/products`, json({ name: 'Lamp', price: 2, quantityInStock: 5 }))
      ).json()) as { id: number };
      for (let i = 0; i < 3; i++)
        expect(
          (await fetch(`${gateway.url}/api/orders`, json({ lines: [{ productId: product.id, quantity: 1 }] }))).status,
        ).to.equal(202);
      expect((await fetch(`${gateway.url}/api/products/${product.id}`)).status).to.equal(200);
      expect(warnings(), 'after requests').to.deep.equal(expected);
    } finally {
      await gateway.stop();
      await sales.close({ immediate: true });
      await stock.close({ immediate: true });
    }
  });
});
