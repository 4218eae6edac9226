import { BACKENDS } from '@platform/test-kit';
import { expect } from 'chai';
import { type SalesUnderTest, type StockUnderTest, startSales, startStock } from './support';

/**
 * The routers are tested in @sales/http-koa on the in-memory store; this is the service's wiring on each storage
 * DATABASE_URL may name: an order placed with stock's price, read back, cancelled, counted.
 */
for (const backend of BACKENDS) {
  describe(`The sales service on ${backend}`, function () {
    this.timeout(60_000);
    let stock: StockUnderTest;
    let sales: SalesUnderTest;
    before(async function () {
      stock = await startStock();
      sales = await startSales(backend, this, { stockUrl: stock.url });
    });
    after(async () => {
      await sales?.stop();
      await stock?.stop();
    });

    it('places an order priced by stock, reads it back, cancels it and counts it in /metrics', async () => {
      const lamp = await stock.product('Desk lamp', 39.9, 10);
      const placed = await sales.json<{ id: string; total: number }>('POST', '/api/orders', {
        lines: [{ productId: lamp, quantity: 2 }],
      });
      expect([placed.status, placed.body.total]).to.deep.equal([202, 79.8]);
      expect((await sales.json('GET', `/api/orders/${placed.body.id}`)).body).to.deep.equal(placed.body);
      const cancelled = await sales.json<{ status: string }>('POST', `/api/orders/${placed.body.id}/cancel`);
      expect(cancelled.body.status).to.equal('cancelled');
      const metrics = await (await sales.request('/metrics')).text();
      expect(metrics).to.match(/^sales_orders\{status="cancelled"\} 1$/m);
    });
  });
}
