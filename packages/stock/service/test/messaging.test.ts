import { Broker, EventPublisher } from '@platform/messaging';
import { createScratchVhost, eventually, type ScratchVhost, vhostUrl } from '@platform/test-kit';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { DEFAULT_CONFIG, type RunningStockService, type StockServiceConfig, startStockService } from '../src';
import { capturingLogger } from './support';
import { checkedFetch } from './checked-fetch';

const quiet = { info() {}, warn() {}, error() {} };

type Readiness = { status?: string; checks: Record<string, string> };

async function start(
  config: Partial<StockServiceConfig>,
  logs: Record<string, unknown>[] = [],
): Promise<RunningStockService> {
  return startStockService(
    { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1', databaseUrl: 'memory:', shutdownDelayMs: 0, ...config },
    { logger: capturingLogger(logs) },
  );
}

const readiness = async (service: RunningStockService) => {
  const response = await checkedFetch(`${service.url}/health/ready`);
  return { status: response.status, body: (await response.json()) as Readiness };
};

describe('The stock service on RabbitMQ', function () {
  this.timeout(60_000);
  let vhost: ScratchVhost;
  let service: RunningStockService;
  const logs: Record<string, unknown>[] = [];

  before(async function () {
    vhost = await createScratchVhost(this);
    service = await start({ amqpUrl: vhost.url }, logs);
    await eventually('the broker up', 10_000, async () => (await readiness(service)).body.checks.broker === 'up');
  });
  after(async () => {
    await service?.close({ immediate: true });
    await vhost?.drop();
  });

  it('logs each order event it handles with the order id and the outcome', async () => {
    const created = await checkedFetch(`${service.url}/api/products`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Lamp', price: 10, quantityInStock: 5 }),
    });
    const { id: lamp } = (await created.json()) as { id: number };
    const broker = new Broker({ url: vhost.url, connectionName: 'stock messaging test', logger: quiet });
    const publisher = new EventPublisher(broker);
    const orderId = randomUUID();
    const placed = {
      id: randomUUID(),
      type: 'sales.order.placed',
      occurredAt: new Date().toISOString(),
      data: { orderId, lines: [{ productId: lamp, quantity: 2 }] },
    };
    try {
      // Returned until stock's queue is bound: sent again until it is taken.
      await eventually('stock’s queue to take the event', 10_000, () =>
        publisher.publish({ id: placed.id, type: placed.type, payload: JSON.stringify(placed) }).then(() => true),
      );
    } finally {
      await publisher.close();
      await broker.close();
    }
    const line = await eventually('the log line', 10_000, async () =>
      logs.find((l) => l.message === 'order event handled' && l.eventId === placed.id),
    );
    expect(line).to.include({ orderId, type: 'sales.order.placed', outcome: 'held', level: 'info' });
  });
});

describe('The stock service when RabbitMQ cannot be reached', function () {
  this.timeout(60_000);
  for (const [what, url] of [
    ['a port nothing listens on', 'amqp://guest:guest@127.0.0.1:1/'],
    ['a vhost the broker does not have', vhostUrl(`no-such-vhost-${randomUUID()}`)],
  ] as const) {
    it(`stays ready and says broker: down in its readiness, with ${what}`, async () => {
      const service = await start({ amqpUrl: url });
      try {
        for (let i = 0; i < 3; i++) {
          const { status, body } = await readiness(service);
          expect(status).to.equal(200);
          expect(body.checks).to.deep.equal({ database: 'memory', broker: 'down' });
          await new Promise((resolve) => setTimeout(resolve, 300));
        }
      } finally {
        await service.close({ immediate: true });
      }
    });
  }
});
