import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { type SalesUnderTest, type StockUnderTest, startSales, startStock } from './support';

type OrderJson = { id: string };
type ProblemJson = { code: string; detail: string };

describe('The orders API when stock does not answer', function () {
  this.timeout(60_000);
  let sales: SalesUnderTest;
  let stock: StockUnderTest;

  before(async function () {
    stock = await startStock();
    sales = await startSales('sqlite', this, { stockUrl: stock.url, stockTimeoutMs: 300 });
  });
  after(async () => {
    await sales?.stop();
    await stock?.stop();
  });

  it('answers 503 STOCK_UNAVAILABLE with Retry-After and records nothing, then the breaker answers at once; it recovers when stock is back', async () => {
    const id = await stock.product('Lamp', 1, 5);
    const port = stock.service.port;
    await stock.stop();
    const first = await sales.json<ProblemJson>('POST', '/api/orders', { lines: [{ productId: id, quantity: 1 }] });
    expect(first.status).to.equal(503);
    expect(first.body.code).to.equal('STOCK_UNAVAILABLE');
    expect(Number(first.headers.get('retry-after'))).to.be.at.least(1);
    await sales.json('POST', '/api/orders', { lines: [{ productId: id, quantity: 1 }] }); // attempts 4-6: the breaker opens
    const open = await sales.json<ProblemJson>('POST', '/api/orders', { lines: [{ productId: id, quantity: 1 }] });
    expect(open.status).to.equal(503);
    expect(open.body.detail).to.match(/not answering; retry in \d s/);
    expect((await sales.json<unknown[]>('GET', '/api/orders')).body).to.deep.equal([]);

    // Stock comes back on the same port; after the breaker's half-open time, orders go through again.
    stock = await startStock({ port });
    const again = await stock.product('Lamp', 1, 5);
    await new Promise((resolve) => setTimeout(resolve, 5_200));
    expect((await sales.json('POST', '/api/orders', { lines: [{ productId: again, quantity: 1 }] })).status).to.equal(
      202,
    );
  });

  it('answers a repeat with its Idempotency-Key from the record while stock is down: 202 replayed, not 503', async () => {
    const id = await stock.product('Pen', 1, 5);
    const key = randomUUID();
    const first = await sales.json<OrderJson>(
      'POST',
      '/api/orders',
      { lines: [{ productId: id, quantity: 1 }] },
      { 'Idempotency-Key': key },
    );
    expect(first.status).to.equal(202);
    const port = stock.service.port;
    await stock.stop();
    try {
      const repeat = await sales.json<OrderJson>(
        'POST',
        '/api/orders',
        { lines: [{ productId: id, quantity: 1 }] },
        { 'Idempotency-Key': key },
      );
      expect(repeat.status).to.equal(202);
      expect(repeat.headers.get('idempotent-replayed')).to.equal('true');
      expect(repeat.body).to.deep.equal(first.body);
      expect(
        (
          await sales.json<ProblemJson>(
            'POST',
            '/api/orders',
            { lines: [{ productId: id, quantity: 1 }] },
            { 'Idempotency-Key': randomUUID() },
          )
        ).status,
        'a new key still needs stock',
      ).to.equal(503);
    } finally {
      stock = await startStock({ port });
    }
  });
});
