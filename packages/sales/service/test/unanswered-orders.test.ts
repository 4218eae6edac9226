import { newEvent } from '@commerce/contracts';
import { Broker, EventPublisher, EVENTS_EXCHANGE } from '@platform/messaging';
import { createScratchVhost, eventually, type ScratchVhost } from '@platform/test-kit';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { type SalesUnderTest, type StockUnderTest, startSales, startStock } from './support';

const quiet = { info() {}, warn() {}, error() {} };

type OrderJson = { id: string; status: string; failureReason?: string };
type Readiness = { checks: Record<string, string> };

describe('An order stock never answers', function () {
  this.timeout(60_000);
  let vhost: ScratchVhost;
  let stock: StockUnderTest;
  let sales: SalesUnderTest;
  let broker: Broker;
  const cancelled: string[] = [];

  before(async function () {
    vhost = await createScratchVhost(this);
    broker = new Broker({ url: vhost.url, connectionName: 'unanswered orders test', logger: quiet });
    // Stands in for stock's queue, whose consumer is gone: the placed event is taken and never answered, as when stock
    // dead-lettered it. The test sees what sales tells stock afterwards.
    const probe = broker.connection.createConsumer(
      {
        queue: 'probe',
        queueOptions: { queue: 'probe', durable: true },
        exchanges: [{ exchange: EVENTS_EXCHANGE, type: 'topic', durable: true }],
        queueBindings: [
          { queue: 'probe', exchange: EVENTS_EXCHANGE, routingKey: 'sales.order.placed' },
          { queue: 'probe', exchange: EVENTS_EXCHANGE, routingKey: 'sales.order.cancelled' },
        ],
      },
      (message) => {
        const { type, data } = message.body as { type: string; data: { orderId: string } };
        if (type === 'sales.order.cancelled') cancelled.push(data.orderId);
      },
    );
    await new Promise((resolve) => probe.once('ready', resolve));
    // Stock answers the catalogue read (the order is placed) but has no messaging: it never holds or refuses it.
    stock = await startStock();
    sales = await startSales('sqlite', this, {
      stockUrl: stock.url,
      amqpUrl: vhost.url,
      orderAnswerTimeoutSeconds: 1,
      orderAnswerSweepMs: 100,
    });
    await eventually(
      'the broker up',
      10_000,
      async () => (await sales.json<Readiness>('GET', '/health/ready')).body.checks.broker === 'up',
    );
  });
  after(async () => {
    await sales?.stop();
    await stock?.stop();
    await broker?.close();
    await vhost?.drop();
  });

  it('is rejected (stock-unanswered) once its answer is overdue, stock is told it is cancelled, and a late hold changes nothing', async () => {
    const lamp = await stock.product('Lamp', 10, 5);
    const key = randomUUID();
    const body = { lines: [{ productId: lamp, quantity: 1 }] };
    const placed = await sales.json<OrderJson>('POST', '/api/orders', body, { 'Idempotency-Key': key });
    expect(placed.status).to.equal(202);
    expect(placed.body.status).to.equal('pending');

    const decided = await eventually('the order decided', 20_000, async () => {
      const { body: order } = await sales.json<OrderJson>('GET', `/api/orders/${placed.body.id}`);
      return order.status !== 'pending' && order;
    });
    expect(decided).to.include({ status: 'rejected', failureReason: 'stock-unanswered' });
    await eventually('sales.order.cancelled sent to stock', 10_000, async () => cancelled.includes(placed.body.id));

    // The buyer asks again with the same key: the same order, no second one.
    const repeat = await sales.json<OrderJson>('POST', '/api/orders', body, { 'Idempotency-Key': key });
    expect(repeat.status).to.equal(202);
    expect(repeat.body.id).to.equal(placed.body.id);
    expect((await sales.json<OrderJson[]>('GET', '/api/orders')).body.map((order) => order.id)).to.deep.equal([
      placed.body.id,
    ]);

    // Stock's hold arrives after all (it was only slow): the order stays decided; stock releases on the cancel.
    const late = newEvent('stock.reservation.confirmed', {
      orderId: placed.body.id,
      reservationId: randomUUID(),
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
    const publisher = new EventPublisher(broker);
    try {
      await publisher.publish({ id: late.id, type: late.type, payload: JSON.stringify(late) });
    } finally {
      await publisher.close();
    }
    await eventually('the late hold handled', 10_000, async () =>
      sales.logs.find((line) => line.message === 'stock event handled' && line.eventId === late.id),
    );
    expect((await sales.json<OrderJson>('GET', `/api/orders/${placed.body.id}`)).body).to.include({
      status: 'rejected',
      failureReason: 'stock-unanswered',
    });
  });
});
