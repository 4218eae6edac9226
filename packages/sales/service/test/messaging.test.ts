import { newEvent } from '@commerce/contracts';
import { Broker, EventPublisher, EVENTS_EXCHANGE } from '@platform/messaging';
import { createScratchVhost, eventually, type ScratchVhost, vhostUrl } from '@platform/test-kit';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import {
  payThroughFakeProvider,
  type SalesUnderTest,
  type StockUnderTest,
  startSales,
  startStock,
  withFakePaymentProvider,
} from './support';

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
    sales = await startSales(
      'sqlite',
      this,
      { stockUrl: stock.url, amqpUrl: vhost.url, outboxPollMs: 60_000 },
      { configure: withFakePaymentProvider },
    );
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

  type OrderJson = {
    status: string;
    reservationId?: string;
    lines: {
      productId: number;
      allocations: { locationId: number; quantity: number }[];
      shippedQuantity: number;
      returnedQuantity: number;
    }[];
  };

  /** Publishes `event` as stock would; returned until a queue is bound to its type, so sent again until taken. */
  async function publish(event: { id: string; type: string }): Promise<void> {
    const publisher = new EventPublisher(broker);
    try {
      await eventually(`a queue to take ${event.type}`, 10_000, () =>
        publisher.publish({ id: event.id, type: event.type, payload: JSON.stringify(event) }).then(() => true),
      );
    } finally {
      await publisher.close();
    }
  }

  const handled = (eventId: string) =>
    eventually('the log line', 10_000, async () =>
      sales.logs.find((l) => l.message === 'stock event handled' && l.eventId === eventId),
    );

  it('logs each stock event it handles with the order id and the outcome, and shows where stock holds each line', async () => {
    const lamp = await stock.product('Lamp', 10, 5);
    const { body: order } = await sales.json<{ id: string }>('POST', '/api/orders', {
      lines: [{ productId: lamp, quantity: 3 }],
    });
    const allocations = [
      { locationId: 1, quantity: 1 },
      { locationId: 2, quantity: 2 },
    ];
    // Stands in for stock: the confirmation with allocations, which sales' queue is bound to.
    const confirmed = newEvent('stock.reservation.confirmed.v2', {
      orderId: order.id,
      reservationId: randomUUID(),
      expiresAt: '2030-01-01T00:00:00.000Z',
      lines: [{ productId: lamp, quantity: 3, allocations }],
    });
    await publish(confirmed);
    expect(await handled(confirmed.id)).to.include({
      orderId: order.id,
      type: 'stock.reservation.confirmed.v2',
      outcome: 'applied',
      level: 'info',
    });
    const { body } = await sales.json<OrderJson>('GET', `/api/orders/${order.id}`);
    expect(body.status).to.equal('reserved');
    expect(body.lines).to.deep.equal([{ ...body.lines[0], productId: lamp, allocations }]);
  });

  it('still confirms on the first version of the confirmation (a stock not upgraded yet), showing no allocations', async () => {
    const lamp = await stock.product('Lamp', 10, 5);
    const { body: order } = await sales.json<{ id: string }>('POST', '/api/orders', {
      lines: [{ productId: lamp, quantity: 1 }],
    });
    const confirmed = newEvent('stock.reservation.confirmed', {
      orderId: order.id,
      reservationId: randomUUID(),
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
    await publish(confirmed);
    expect(await handled(confirmed.id)).to.include({ type: 'stock.reservation.confirmed', outcome: 'applied' });
    const { body } = await sales.json<OrderJson>('GET', `/api/orders/${order.id}`);
    expect(body).to.include({ status: 'reserved', reservationId: confirmed.data.reservationId });
    expect(body.lines.map((line) => line.allocations)).to.deep.equal([[]]);
  });

  it("counts the shipments and returns stock publishes on the order's lines, and moves it on to shipped and returned", async () => {
    const lamp = await stock.product('Lamp', 10, 5);
    const { body: order } = await sales.json<{ id: string }>('POST', '/api/orders', {
      lines: [{ productId: lamp, quantity: 3 }],
    });
    const confirmed = newEvent('stock.reservation.confirmed.v2', {
      orderId: order.id,
      reservationId: randomUUID(),
      expiresAt: '2030-01-01T00:00:00.000Z',
      lines: [{ productId: lamp, quantity: 3, allocations: [{ locationId: 1, quantity: 3 }] }],
    });
    await publish(confirmed);
    await handled(confirmed.id);
    await payThroughFakeProvider(sales.service, order.id);
    expect((await sales.json<OrderJson>('GET', `/api/orders/${order.id}`)).body.status).to.equal('paid');
    const shipped = newEvent('stock.shipment.created', {
      shipmentId: randomUUID(),
      orderId: order.id,
      lines: [{ productId: lamp, locationId: 1, quantity: 3 }],
      carrier: 'DHL',
      trackingNumber: 'JD014600006281230123',
    });
    await publish(shipped);
    expect(await handled(shipped.id)).to.include({ type: 'stock.shipment.created', outcome: 'applied' });
    const afterShipment = (await sales.json<OrderJson>('GET', `/api/orders/${order.id}`)).body;
    expect(afterShipment.status).to.equal('shipped');
    expect(afterShipment.lines[0]).to.include({ shippedQuantity: 3, returnedQuantity: 0 });
    const returned = newEvent('stock.return.received', {
      returnId: randomUUID(),
      orderId: order.id,
      lines: [
        { productId: lamp, locationId: 1, quantity: 2, disposition: 'restock' },
        { productId: lamp, locationId: 1, quantity: 1, disposition: 'damaged' },
      ],
      reason: 'wrong colour',
    });
    await publish(returned);
    expect(await handled(returned.id)).to.include({ type: 'stock.return.received', outcome: 'applied' });
    const afterReturn = (await sales.json<OrderJson>('GET', `/api/orders/${order.id}`)).body;
    expect(afterReturn.status).to.equal('returned');
    expect(afterReturn.lines[0]).to.include({ shippedQuantity: 3, returnedQuantity: 3 });
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
