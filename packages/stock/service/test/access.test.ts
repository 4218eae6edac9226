import { capturingLogger } from '@platform/runtime';
import {
  CLIENTS,
  type IdentityUnderTest,
  SALES,
  STOCK,
  scratchFolder,
  startIdentity,
  tokenChecksContract,
} from '@commerce/identity/testing';
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { DEFAULT_CONFIG, type RunningStockService, startStockService } from '../src';
import { callWith, checkedFetch, uncheckedFetch } from './checked-fetch';
import { OPENAPI_FILE, openApiDocument } from '@stock/http-koa/testing';

/** The stock service in memory, checking tokens of `identity`. */
function startGuardedStock(
  identity: IdentityUnderTest,
  logs: Record<string, unknown>[] = [],
): Promise<RunningStockService> {
  return startStockService(
    {
      ...DEFAULT_CONFIG,
      port: 0,
      host: '127.0.0.1',
      databaseUrl: 'memory:',
      shutdownDelayMs: 0,
      authIssuer: identity.service.issuer,
      openApiFile: OPENAPI_FILE,
      // The webhook subscription API is served, so its scope is checked too.
      webhooks: 'on',
      webhookSecretsKey: randomBytes(32).toString('base64'),
    },
    { logger: capturingLogger('stock-service', logs) },
  );
}

tokenChecksContract(
  'the stock service',
  { otherAudience: { client: 'checkout', audience: SALES, scope: 'orders:write' }, scopes: true },
  async (identity) => {
    const stock = await startGuardedStock(identity);
    return {
      call: (token) => callWith(`${stock.url}/api/products`, token),
      good: { client: 'inventory-sync', audience: STOCK, scope: 'stock:read' },
      needsAnotherScope: (token) =>
        callWith(`${stock.url}/api/products`, token, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Lamp', price: 1 }),
        }),
      close: async () => void (await stock.close({ immediate: true })),
    };
  },
);

/** A client of CLIENTS holding `scope`, to ask for a token with that scope alone. */
const holderOf = (scope: string) => CLIENTS.find((client) => client.scopes.includes(scope))!.clientId;

describe('the stock service with tokens on', function () {
  this.timeout(30_000);
  let files: ReturnType<typeof scratchFolder>;
  let identity: IdentityUnderTest;
  let stock: RunningStockService;
  const logs: Record<string, unknown>[] = [];

  before(async () => {
    files = scratchFolder();
    identity = await startIdentity(files);
    stock = await startGuardedStock(identity, logs);
  });
  after(async () => {
    await stock?.close({ immediate: true });
    await identity?.stop();
    files?.remove();
  });

  const only = (scope: string) => identity.token(holderOf(scope), STOCK, scope);

  it('asks each operation for exactly the scope docs/openapi.yaml names: one of them lets it through, any other is a 403', async () => {
    const product = (await (
      await callWith(`${stock.url}/api/products`, await only('stock:write'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Lamp', price: 1, quantityInStock: 5 }),
      })
    ).json()) as { id: number };
    const reservation = (await (
      await callWith(`${stock.url}/api/reservations`, await only('stock:reserve'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ reference: 'scopes', lines: [{ productId: product.id, quantity: 1 }] }),
      })
    ).json()) as { id: string };
    const bodies: Record<string, unknown> = {
      createProduct: { name: 'Pen', price: 1 },
      updateProduct: { name: 'Lamp', price: 2, quantityInStock: 5 },
      adjustStock: { delta: 1 },
      changeStockState: { locationId: 1, quantity: 1, from: 'available', to: 'quality-control' },
      reserveStock: { reference: `scopes-${Date.now()}`, lines: [{ productId: product.id, quantity: 1 }] },
      createLocation: { code: 'scopes', name: 'Scopes' },
      sendStockTransfer: {
        productId: product.id,
        fromLocationId: 1,
        toLocationId: 2,
        quantity: 1,
        reference: 'scopes',
      },
      // Of an order stock never held: past the scope check, a 409 ORDER_NOT_SHIPPABLE and RETURN_EXCEEDS_SHIPPED.
      shipOrder: { orderId: reservation.id, lines: [{ productId: product.id, quantity: 1 }] },
      receiveReturn: {
        orderId: reservation.id,
        lines: [{ productId: product.id, quantity: 1, locationId: 1, disposition: 'restock' }],
      },
    };
    const checked: string[] = [];
    for (const [path, item] of Object.entries(openApiDocument.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!['get', 'put', 'post', 'delete', 'patch'].includes(method)) continue;
        const alternatives =
          (operation.security as Record<string, string[]>[] | undefined)?.map(
            (requirement) => requirement.bearerAuth!,
          ) ?? [];
        if (!path.startsWith('/api/')) continue;
        expect(alternatives.length, `${method} ${path} names its scopes`).to.be.greaterThan(0);
        const url = `${stock.url}${path.replace('/api/products/{id}', `/api/products/${product.id}`).replace('{id}', reservation.id)}`;
        const body = bodies[operation.operationId!];
        const init = {
          method: method.toUpperCase(),
          ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        };
        const granted = alternatives.flat();
        for (const other of ['stock:read', 'stock:write', 'stock:reserve', 'stock:fulfil'].filter(
          (scope) => !granted.includes(scope),
        )) {
          expect(
            (await callWith(url, await only(other), init)).status,
            `${method} ${path} with only ${other}`,
          ).to.equal(403);
        }
        // Deleting first would leave nothing for the other operations: the delete goes last, on its own product.
        const response = await callWith(
          operation.operationId === 'deleteProduct'
            ? url.replace(`/api/products/${product.id}`, '/api/products/999999')
            : url,
          await only(alternatives[0]![0]!),
          init,
        );
        expect([401, 403], `${method} ${path} with ${alternatives[0]!.join(' ')}`).not.to.include(response.status);
        checked.push(operation.operationId!);
      }
    }
    expect(checked).to.have.members([
      'listProducts',
      'createProduct',
      'exportProducts',
      'importProducts',
      'getProduct',
      'updateProduct',
      'deleteProduct',
      'adjustStock',
      'changeStockState',
      'listStockMovements',
      'reserveStock',
      'getReservation',
      'commitReservation',
      'releaseReservation',
      'createWebhookSubscription',
      'listWebhookSubscriptions',
      'getWebhookSubscription',
      'deleteWebhookSubscription',
      'rotateWebhookSecret',
      'listWebhookDeliveries',
      'replayWebhooks',
      'listStockLevels',
      'listLocations',
      'createLocation',
      'getLocation',
      'deleteLocation',
      'listStockTransfers',
      'sendStockTransfer',
      'getStockTransfer',
      'receiveStockTransfer',
      'cancelStockTransfer',
      'shipOrder',
      'listShipments',
      'getShipment',
      'receiveReturn',
      'listReturns',
      'getReturn',
    ]);
  });

  it('keeps health, metrics and /swagger open', async () => {
    for (const path of ['/health/live', '/health/ready', '/metrics'])
      expect((await checkedFetch(`${stock.url}${path}`)).status, path).to.equal(200);
    for (const path of ['/swagger', '/swagger/openapi.json'])
      expect(
        (await uncheckedFetch(`${stock.url}${path}`, undefined, 'the page is no API operation')).status,
        path,
      ).to.equal(200);
  });

  it('does not warn that it runs open', () => {
    expect(logs.filter((line) => String(line.message).includes('access tokens are not checked'))).to.deep.equal([]);
  });
});
