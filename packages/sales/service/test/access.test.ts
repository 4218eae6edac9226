import { capturingLogger } from '@platform/runtime';
import { IN_THIS_PROCESS } from '@platform/test-kit';
import { type IdentityUnderTest, SALES, STOCK, tokenChecksContract } from '@commerce/identity/testing';
import { DEFAULT_CONFIG, type RunningSalesService, startSalesService } from '../src';
import { callWith } from '@sales/http-koa/testing';
import { type StockUnderTest, startStock } from './support';

/** The sales service in memory, checking tokens of `identity`, pricing from an open stock service. */
function startGuardedSales(identity: IdentityUnderTest, stockUrl: string): Promise<RunningSalesService> {
  return startSalesService(
    {
      ...DEFAULT_CONFIG,
      ...IN_THIS_PROCESS,
      authIssuer: identity.service.issuer,
      stockUrl,
    },
    { logger: capturingLogger('sales-service', []) },
  );
}

/** The service's token settings (AUTH_ISSUER) at work; whose orders a buyer sees is the router's (@sales/http-koa). */
describe('the sales service with tokens on', function () {
  this.timeout(30_000);
  let stock: StockUnderTest;
  let lamp: number;
  before(async () => {
    stock = await startStock();
    lamp = await stock.product('Lamp', 10, 100);
  });
  after(async () => stock?.stop());

  tokenChecksContract(
    'the sales service',
    { otherAudience: { client: 'inventory-sync', audience: STOCK, scope: 'stock:read' }, scopes: true },
    async (identity) => {
      const sales = await startGuardedSales(identity, stock.url);
      return {
        call: (token) => callWith(`${sales.url}/api/orders`, token),
        good: { client: 'reporting', audience: SALES, scope: 'orders:read' },
        needsAnotherScope: (token) =>
          callWith(`${sales.url}/api/orders`, token, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ lines: [{ productId: lamp, quantity: 1 }] }),
          }),
        close: async () => void (await sales.close({ immediate: true })),
      };
    },
  );
});
