import { newEvent } from '@commerce/contracts';
import { Broker, EventPublisher, EVENTS_EXCHANGE } from '@platform/messaging-rabbitmq';
import { createScratchVhost, eventually, type ScratchVhost, vhostUrl } from '@platform/test-kit';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { type SalesUnderTest, type StockUnderTest, startSales, startStock } from './support';

const quiet = { info() {}, warn() {}, error() {} };

type Readiness = { status?: string; checks: Record<string, string> };

describe('The sales service on RabbitMQ', function () {
  this.timeout(60_000);
  let vhost: ScratchVhost;
  let stock: StockUnderTest;
  let sales: SalesUnderTest;
  let broker: Broker;
  const placedEvents: { body: unknown; routingKey: string }[] = [];

  before(async function () {
    vhost = await createScratchVhost(this);
    broker = new Broker({ url: vhost.url, connectionName: 'sales messaging test', logger: quiet });
    // Stands in for stock's queue: sales.order.placed is routed somewhere, and the test sees it.
    const probe = broker.connection.createConsumer(
      {
        queue: 'probe',
        queueOptions: { queue: 'probe', durable: true },
        exchanges: [{ exchange: EVENTS_EXCHANGE, type: 'topic', durable: true }],
        queueBindings: [{ queue: 'probe', exchange: EVENTS_EXCHANGE, routingKey: 'sales.order.placed' }],
      },
      (message) => void placedEvents.push(message),
    );
    await new Promise((resolve) => probe.once('ready', resolve));
    stock = await startStock();
    // The relay polls once a minute: an event published sooner was published because its unit of work woke the relay.
    sales = await startSales('sqlite', this, { stockUrl: stock.url, amqpUrl: vhost.url, outboxPollMs: 60_000 });
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

  it('publishes an order’s placed event as soon as the order commits, long before the relay’s next poll', async () => {
    const lamp = await stock.product('Lamp', 10, 5);
    const { body: order } = await sales.json<{ id: string }>('POST', '/api/orders', {
      lines: [{ productId: lamp, quantity: 1 }],
    });
    const message = await eventually('the placed event', 15_000, async () =>
      placedEvents.find((m) => (m.body as { data: { orderId: string } }).data.orderId === order.id),
    );
    expect(message.routingKey).to.equal('sales.order.placed');
  });

  it('logs each stock event it handles with the order id and the outcome', async () => {
    const lamp = await stock.product('Lamp', 10, 5);
    const { body: order } = await sales.json<{ id: string }>('POST', '/api/orders', {
      lines: [{ productId: lamp, quantity: 1 }],
    });
    const publisher = new EventPublisher(broker);
    const confirmed = newEvent('stock.reservation.confirmed', {
      orderId: order.id,
      reservationId: randomUUID(),
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
    // Returned until sales' queue is bound: sent again until it is taken.
    await eventually('sales’ queue to take the event', 10_000, () =>
      publisher
        .publish({ id: confirmed.id, type: confirmed.type, payload: JSON.stringify(confirmed) })
        .then(() => true),
    );
    await publisher.close();
    const line = await eventually('the log line', 10_000, async () =>
      sales.logs.find((l) => l.message === 'stock event handled' && l.eventId === confirmed.id),
    );
    expect(line).to.include({
      orderId: order.id,
      type: 'stock.reservation.confirmed',
      outcome: 'applied',
      level: 'info',
    });
    expect((await sales.json<{ status: string }>('GET', `/api/orders/${order.id}`)).body.status).to.equal('reserved');
  });
});

describe('The sales service when RabbitMQ cannot be reached', function () {
  this.timeout(60_000);
  for (const [what, url] of [
    ['a port nothing listens on', 'amqp://guest:guest@127.0.0.1:1/'],
    ['a vhost the broker does not have', vhostUrl(`no-such-vhost-${randomUUID()}`)],
  ] as const) {
    it(`stays ready and says broker: down in its readiness, with ${what}`, async function () {
      const sales = await startSales('memory', this, { amqpUrl: url });
      try {
        // The broker is tried in the background: it is down on the first answer and stays so.
        for (let i = 0; i < 3; i++) {
          const { status, body } = await sales.json<Readiness>('GET', '/health/ready');
          expect(status).to.equal(200);
          expect(body.checks).to.deep.equal({ database: 'memory', broker: 'down' });
          await new Promise((resolve) => setTimeout(resolve, 300));
        }
      } finally {
        await sales.stop();
      }
    });
  }
});
