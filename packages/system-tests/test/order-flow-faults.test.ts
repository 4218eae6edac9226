import { eventually, restartRabbitmq } from '@platform/test-kit';
import { expect } from 'chai';
import {
  allOrders,
  countByStatus,
  json,
  launch,
  ledgerSums,
  type Order,
  type OrderSystem,
  type Product,
  type RunningProcess,
  startOrderSystem,
} from './support';

/**
 * Places orders of one unit, one every `everyMs`, until stopped. `accepted`
 * grows as sales accepts them (202); orders refused while stock is away (503,
 * nothing recorded) are only counted.
 */
function keepPlacing(
  salesUrl: string,
  productId: number,
  everyMs: number,
): { accepted: string[]; refused: () => number; stop(): Promise<void> } {
  let stopped = false;
  const accepted: string[] = [];
  let refused = 0;
  const loop = (async () => {
    while (!stopped) {
      const { status, body } = await json<Order>('POST', `${salesUrl}/api/orders`, {
        lines: [{ productId, quantity: 1 }],
      }).catch(() => ({ status: 0, body: undefined }));
      if (status === 202 && body) accepted.push(body.id);
      else refused++;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    accepted,
    refused: () => refused,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/**
 * The system's invariants once every order has settled: what stock holds is what the reserved orders hold, and the
 * ledger sums.
 */
async function expectConsistent(
  stockUrl: string,
  salesUrl: string,
  productId: number,
  initialStock: number,
  accepted: readonly string[],
): Promise<Order[]> {
  const orders = await eventually('every accepted order to leave pending', 90_000, async () => {
    const all = await allOrders(salesUrl);
    return all.length === accepted.length && all.every((o) => o.status !== 'pending') && all;
  });
  expect(orders.map((o) => o.id).sort()).to.deep.equal([...accepted].sort());
  const counts = countByStatus(orders);
  const { body: product } = await json<Product>('GET', `${stockUrl}/api/products/${productId}`);
  expect(product.reservedQuantity, 'stock holds exactly what the reserved orders hold: none was held twice').to.equal(
    counts.reserved ?? 0,
  );
  expect(product.quantityInStock).to.equal(initialStock);
  expect((counts.reserved ?? 0) + (counts.rejected ?? 0)).to.equal(accepted.length);
  expect(await ledgerSums(stockUrl, productId)).to.deep.equal({
    quantity: product.quantityInStock,
    reserved: product.reservedQuantity,
    committed: product.committedQuantity,
  });
  return orders;
}

describe('The order flow under faults, on PostgreSQL and RabbitMQ', function () {
  this.timeout(240_000);
  let system: OrderSystem;
  let stock: RunningProcess;
  let sales: RunningProcess;

  beforeEach(async function () {
    system = await startOrderSystem('postgresql', this, { sales: { STOCK_TIMEOUT_MS: '500' } });
    ({ stock, sales } = system);
  });
  afterEach(async () => system?.stop());

  it('settles every order once, none held twice, when the stock service is killed with SIGKILL and started again mid-flow', async () => {
    const lamp = (
      await json<Product>('POST', `${stock.url}/api/products`, { name: 'Lamp', price: 10, quantityInStock: 25 })
    ).body.id;
    const placing = keepPlacing(sales.url, lamp, 20);
    await eventually(
      'orders being placed and reserved',
      20_000,
      async () => (countByStatus(await allOrders(sales.url)).reserved ?? 0) >= 5,
    );
    await stock.process.stop('SIGKILL');
    const acceptedBeforeTheKill = placing.accepted.length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // The same port: sales reaches stock at the URL it was given.
    stock = system.stock = await launch('stock', { ...system.stockEnv, PORT: String(stock.port) });
    await eventually(
      'orders accepted again once stock is back',
      30_000,
      async () => placing.accepted.length >= acceptedBeforeTheKill + 10,
    );
    await placing.stop();
    expect(placing.refused(), 'orders placed while stock was down were refused, not recorded').to.be.greaterThan(0);
    const orders = await expectConsistent(stock.url, sales.url, lamp, 25, placing.accepted);
    expect(countByStatus(orders).reserved).to.equal(Math.min(25, placing.accepted.length));
  });

  it('settles every order, nothing lost, when RabbitMQ restarts mid-flow', async () => {
    const lamp = (
      await json<Product>('POST', `${stock.url}/api/products`, { name: 'Lamp', price: 10, quantityInStock: 40 })
    ).body.id;
    const placing = keepPlacing(sales.url, lamp, 20);
    await eventually(
      'orders being placed and reserved',
      20_000,
      async () => (countByStatus(await allOrders(sales.url)).reserved ?? 0) >= 5,
    );
    await restartRabbitmq(1_000);
    const acceptedBeforeTheRestart = placing.accepted.length;
    await eventually(
      'more orders placed after the restart',
      30_000,
      async () => placing.accepted.length >= acceptedBeforeTheRestart + 10,
    );
    await placing.stop();
    const orders = await expectConsistent(stock.url, sales.url, lamp, 40, placing.accepted);
    expect(countByStatus(orders).reserved).to.equal(Math.min(40, placing.accepted.length));
    const ready = await json<{ checks: Record<string, string> }>('GET', `${sales.url}/health/ready`);
    expect(ready.body.checks).to.deep.equal({ database: 'up', broker: 'up' });
  });
});
