import { createScratchVhost, eventually, type ScratchVhost } from '@platform/test-kit';
import { UnavailableError } from '@platform/kernel';
import type { OutboxStore } from '@platform/kernel';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { Registry } from 'prom-client';
import {
  Broker,
  type Decoded,
  deadLetterQueueOf,
  EventConsumer,
  EventPublisher,
  MessagingMetrics,
  OutboxRelay,
  UnroutableEventError,
  wakingTheRelay,
} from '../src/index';
import { collect, envelope, memoryOutbox, quietLogger } from './support';

chai.use(chaiAsPromised);
const { expect } = chai;

interface TestEvent {
  readonly id: string;
  readonly type: string;
  readonly occurredAt: string;
  readonly data: { readonly n?: number };
}

/** Accepts any envelope whose type starts with "test.". */
function decodeTest(body: unknown): Decoded<TestEvent> {
  const value = Buffer.isBuffer(body)
    ? (() => {
        try {
          return JSON.parse(String(body)) as unknown;
        } catch {
          return undefined;
        }
      })()
    : body;
  const candidate = value as Partial<TestEvent> | undefined;
  if (
    typeof candidate?.id === 'string' &&
    typeof candidate.type === 'string' &&
    candidate.type.startsWith('test.') &&
    typeof candidate.occurredAt === 'string'
  ) {
    return { ok: true, event: candidate as TestEvent };
  }
  return { ok: false, failure: { reason: 'not-an-envelope', message: 'not a test event' } };
}

/** The store, its claims made by `claim` (which may call the store's own). */
function withClaim(store: OutboxStore, claim: OutboxStore['claim']): OutboxStore {
  return Object.assign(Object.create(store) as OutboxStore, { claim });
}

describe('RabbitMQ messaging: the relay and the consumer', function () {
  this.timeout(60_000);
  let vhost: ScratchVhost;
  let broker: Broker;

  before(async function () {
    vhost = await createScratchVhost(this);
    broker = new Broker({ url: vhost.url, connectionName: 'messaging tests', logger: quietLogger });
    await broker.waitUntilConnected(10_000);
  });
  after(async () => {
    await broker?.close();
    await vhost?.drop();
  });

  /** Messages ready in a queue (not those a consumer holds unacked). */
  const depth = async (queue: string) => (await broker.connection.queueDeclare({ queue, passive: true })).messageCount;

  it('publishes the outbox in order with confirms, and marks rows published only once the broker has them', async () => {
    const probe = collect(broker, 'probe-order', ['test.ordered']);
    await probe.ready;
    const outbox = memoryOutbox();
    const events = Array.from({ length: 50 }, (_, n) =>
      envelope('test.ordered', { n }, new Date(Date.UTC(2026, 10, 23, 12, 0, 0, n))),
    );
    await outbox.write(...events);
    const publisher = new EventPublisher(broker);
    const relay = new OutboxRelay({ store: outbox.store, publisher, logger: quietLogger, batchSize: 20 });
    expect(await relay.relayOnce()).to.equal(20);
    expect(await outbox.store.countUnpublished()).to.equal(30);
    while ((await relay.relayOnce()) > 0);
    await eventually('every event at the probe', 5_000, () => probe.messages.length === 50);
    expect(probe.messages.map((m) => m.messageId)).to.deep.equal(events.map((e) => e.id));
    const first = probe.messages[0]!;
    expect(first).to.include({
      routingKey: 'test.ordered',
      exchange: 'commerce.events',
      durable: true,
      contentType: 'application/json',
    });
    expect(first.body).to.deep.equal(events[0]);
    expect(await outbox.store.countUnpublished()).to.equal(0);
    await publisher.close();
    await probe.close();
  });

  it('publishes an event no service must receive even while no queue is bound to it, so it never waits in the outbox', async () => {
    const outbox = memoryOutbox();
    const alert = envelope('test.unbound-alert');
    await outbox.write(alert);
    const publisher = new EventPublisher(broker, (type) => type !== 'test.unbound-alert');
    const relay = new OutboxRelay({ store: outbox.store, publisher, logger: quietLogger });
    expect(await relay.relayOnce()).to.equal(1);
    expect(await outbox.store.countUnpublished(), 'a published alert leaves the outbox').to.equal(0);
    // The same publisher still holds back what must be routed.
    const lonely = envelope('test.unbound');
    await expect(
      publisher.publish({ id: lonely.id, type: lonely.type, payload: JSON.stringify(lonely) }),
    ).to.be.rejectedWith(UnroutableEventError);
    await publisher.close();
  });

  it('keeps an event no queue is bound to in the outbox, retried with backoff, and publishes it once its consumer exists', async () => {
    const outbox = memoryOutbox();
    const lonely = envelope('test.unbound');
    await outbox.write(lonely);
    const publisher = new EventPublisher(broker);
    await expect(
      publisher.publish({ id: lonely.id, type: lonely.type, payload: JSON.stringify(lonely) }),
    ).to.be.rejectedWith(UnroutableEventError);
    const relay = new OutboxRelay({
      store: outbox.store,
      publisher,
      logger: quietLogger,
      backoffMs: 50,
      maxBackoffMs: 200,
    });
    expect(await relay.relayOnce()).to.equal(1);
    expect(await outbox.store.countUnpublished(), 'a returned event stays').to.equal(1);
    const probe = collect(broker, 'probe-unbound', ['test.unbound']);
    await probe.ready;
    relay.start();
    await eventually('the event once a queue is bound', 5_000, () => probe.messages.length === 1);
    await relay.stop();
    expect(probe.messages[0]!.messageId).to.equal(lonely.id);
    expect(await outbox.store.countUnpublished()).to.equal(0);
    await publisher.close();
    await probe.close();
  });

  it('keeps every event while the broker cannot be reached, counting the attempts, and loses none', async () => {
    const outbox = memoryOutbox();
    await outbox.write(envelope('test.nowhere'), envelope('test.nowhere'));
    const unreachable = new Broker({
      url: 'amqp://guest:guest@127.0.0.1:1/',
      connectionName: 'nowhere',
      logger: quietLogger,
    });
    const publisher = new EventPublisher(unreachable);
    const relay = new OutboxRelay({
      store: outbox.store,
      publisher,
      logger: quietLogger,
      publishTimeoutMs: 300,
      backoffMs: 10,
      maxBackoffMs: 10,
    });
    expect(await relay.relayOnce()).to.equal(2);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await relay.relayOnce()).to.equal(2);
    expect(await outbox.store.countUnpublished()).to.equal(2);
    const [row] = await outbox.store.claim(1, 1, Date.now() + 1000);
    expect(row!.attempts).to.equal(2);
    unreachable.connection.unsafeDestroy();
  });

  it('publishes at once when a unit of work that wrote events commits, long before the next poll; neither one without events nor one rolled back wakes it', async () => {
    const probe = collect(broker, 'probe-wake', ['test.woken']);
    await probe.ready;
    const outbox = memoryOutbox();
    let rounds = 0;
    const store = withClaim(outbox.store, (...args) => ((rounds += 1), outbox.store.claim(...args)));
    const publisher = new EventPublisher(broker);
    const relay = new OutboxRelay({ store, publisher, logger: quietLogger, pollMs: 600_000 }).start();
    let wakes = 0;
    const unitOfWork = wakingTheRelay(outbox.unitOfWork, () => {
      wakes++;
      relay.wake();
    });
    await eventually('the relay to find the outbox empty and sleep', 5_000, () => rounds === 1);
    await unitOfWork.run(async () => 'no event');
    await expect(
      unitOfWork.run(async (tx) => {
        await tx.outbox.add(envelope('test.woken'));
        throw new Error('rolled back');
      }),
    ).to.be.rejectedWith('rolled back');
    expect(wakes).to.equal(0);
    const sent = envelope('test.woken');
    await unitOfWork.run((tx) => tx.outbox.add(sent));
    expect(wakes).to.equal(1);
    // The relay polls every ten minutes: the event is there long before that only because it was woken.
    await eventually('the woken relay to publish', 10_000, () => probe.messages.length === 1);
    expect(probe.messages.map((m) => m.messageId)).to.deep.equal([sent.id]);
    await relay.stop();
    await publisher.close();
    await probe.close();
  });

  it('does not lose a wake that comes while a round is under way: the round ends without sleeping', async () => {
    const probe = collect(broker, 'probe-wake-mid-round', ['test.mid-round']);
    await probe.ready;
    const outbox = memoryOutbox();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let rounds = 0;
    // The first round's claim has read the outbox (empty) and is held there while the event commits and the wake comes.
    const store = withClaim(outbox.store, async (...args) => {
      const rows = await outbox.store.claim(...args);
      if (++rounds === 1) await held;
      return rows;
    });
    const publisher = new EventPublisher(broker);
    const relay = new OutboxRelay({ store, publisher, logger: quietLogger, pollMs: 600_000 }).start();
    await eventually('the first round to claim', 5_000, () => rounds === 1);
    const sent = envelope('test.mid-round');
    await wakingTheRelay(outbox.unitOfWork, () => relay.wake()).run((tx) => tx.outbox.add(sent));
    release();
    await eventually('the next round, at once', 10_000, () => probe.messages.length === 1);
    await relay.stop();
    await publisher.close();
    await probe.close();
  });

  it('acks an event only after its handler resolved, and counts it', async () => {
    const registry = new Registry();
    const metrics = new MessagingMetrics(registry);
    const handled: string[] = [];
    const consumer = new EventConsumer<TestEvent>({
      broker,
      spec: { queue: 'ack-after-commit', routingKeys: ['test.ack'] },
      decode: decodeTest,
      handle: async (event) => {
        handled.push(event.id);
        return 'applied';
      },
      logger: quietLogger,
      metrics,
    }).start();
    await consumer.ready();
    const publisher = new EventPublisher(broker);
    const sent = envelope('test.ack');
    await publisher.publish({ id: sent.id, type: sent.type, payload: JSON.stringify(sent) });
    await eventually('the handler', 5_000, () => handled.length === 1);
    // Stopping waits for the handler's ack; an unacked message would be back in the queue.
    await consumer.stop();
    expect(await depth('ack-after-commit')).to.equal(0);
    expect(handled).to.deep.equal([sent.id]);
    expect(await registry.getSingleMetricAsString('messaging_events_consumed_total')).to.include(
      'messaging_events_consumed_total{type="test.ack",outcome="applied"} 1',
    );
    await publisher.close();
  });

  it('returns a message whose handler throws to the queue, and dead-letters it when it has failed as often as the delivery limit allows, counting the redeliveries and the dead letter', async () => {
    const attempts: number[] = [];
    const registry = new Registry();
    const consumer = new EventConsumer<TestEvent>({
      metrics: new MessagingMetrics(registry),
      broker,
      spec: { queue: 'always-fails', routingKeys: ['test.poison'], deliveryLimit: 3 },
      decode: decodeTest,
      handle: async (_event, delivery) => {
        attempts.push(delivery.failedDeliveries);
        throw new Error('the handler is broken');
      },
      logger: quietLogger,
    }).start();
    await consumer.ready();
    const publisher = new EventPublisher(broker);
    const poison = envelope('test.poison');
    await publisher.publish({ id: poison.id, type: poison.type, payload: JSON.stringify(poison) });
    await eventually('the dead letter', 15_000, async () => (await depth(deadLetterQueueOf('always-fails'))) === 1);
    await consumer.stop();
    expect(attempts, 'three deliveries, each counted by the quorum queue').to.deep.equal([0, 1, 2]);
    const deadLetter = await broker.connection.basicGet({ queue: deadLetterQueueOf('always-fails'), noAck: true });
    expect(deadLetter?.messageId).to.equal(poison.id);
    expect((deadLetter?.headers?.['x-death'] as object[] | undefined)?.[0]).to.include({
      queue: 'always-fails',
      exchange: 'commerce.events',
    });
    expect(await depth('always-fails')).to.equal(0);
    expect(await registry.getSingleMetricAsString('messaging_events_redelivered_total')).to.include(
      'messaging_events_redelivered_total{type="test.poison"} 2',
    );
    expect(await registry.getSingleMetricAsString('messaging_events_dead_lettered_total')).to.include(
      'messaging_events_dead_lettered_total{reason="handler-failed"} 1',
    );
    await publisher.close();
  });

  it('lets RabbitMQ dead-letter a message whose consumer dies before acking it, every time: the queue counts the deliveries, not the consumer', async () => {
    // The queue and its dead letters as the service declares them, with a limit of three.
    const declaring = new EventConsumer<TestEvent>({
      broker,
      spec: { queue: 'dies-before-ack', routingKeys: ['test.crash'], deliveryLimit: 3 },
      decode: decodeTest,
      handle: async () => 'applied',
      logger: quietLogger,
    }).start();
    await declaring.ready();
    await declaring.stop();
    const publisher = new EventPublisher(broker);
    const crash = envelope('test.crash');
    await publisher.publish({ id: crash.id, type: crash.type, payload: JSON.stringify(crash) });
    await publisher.close();
    // Each time a consumer takes the message and its channel closes before any ack, as a process that crashes on it
    // would.
    const counts: unknown[] = [];
    for (let delivery = 0; delivery < 6; delivery++) {
      const channel = await broker.connection.acquire();
      await channel.basicQos({ prefetchCount: 1 });
      const taken = await new Promise<boolean>((resolve) => {
        const nothing = setTimeout(() => resolve(false), 1_000);
        void channel.basicConsume({ queue: 'dies-before-ack' }, (message) => {
          clearTimeout(nothing);
          counts.push(message.headers?.['x-delivery-count'] ?? 0);
          resolve(true);
        });
      });
      await channel.close();
      if (!taken) break;
    }
    expect(counts, 'three deliveries, then no more').to.deep.equal([0, 1, 2]);
    await eventually('the dead letter', 5_000, async () => (await depth(deadLetterQueueOf('dies-before-ack'))) === 1);
    const deadLetter = await broker.connection.basicGet({ queue: deadLetterQueueOf('dies-before-ack'), noAck: true });
    expect(deadLetter?.messageId).to.equal(crash.id);
    expect((deadLetter?.headers?.['x-death'] as object[] | undefined)?.[0]).to.include({
      queue: 'dies-before-ack',
      reason: 'delivery_limit',
    });
  });

  it('consumes a queue declared earlier with another delivery limit as it stands, saying so in one line; the queue keeps its own limit', async () => {
    const first = new EventConsumer<TestEvent>({
      broker,
      spec: { queue: 'limit-changed', routingKeys: ['test.limit'], deliveryLimit: 3 },
      decode: decodeTest,
      handle: async () => 'applied',
      logger: quietLogger,
    }).start();
    await first.ready();
    await first.stop();
    const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
    const logger = {
      info: () => {},
      warn: (message: string, fields?: Record<string, unknown>) =>
        void lines.push({ level: 'warn', message, ...(fields && { fields }) }),
      error: (message: string, fields?: Record<string, unknown>) =>
        void lines.push({ level: 'error', message, ...(fields && { fields }) }),
    };
    const attempts: number[] = [];
    // MESSAGING_DELIVERY_LIMIT raised to 6 for a queue declared with 3: RabbitMQ refuses to redeclare it so.
    const second = new EventConsumer<TestEvent>({
      broker,
      spec: { queue: 'limit-changed', routingKeys: ['test.limit'], deliveryLimit: 6 },
      decode: decodeTest,
      handle: async (_event, delivery) => {
        attempts.push(delivery.failedDeliveries);
        throw new Error('the handler is broken');
      },
      logger,
    }).start();
    await second.ready();
    const publisher = new EventPublisher(broker);
    const poison = envelope('test.limit');
    await publisher.publish({ id: poison.id, type: poison.type, payload: JSON.stringify(poison) });
    await publisher.close();
    await eventually('the dead letter', 15_000, async () => (await depth(deadLetterQueueOf('limit-changed'))) === 1);
    await second.stop();
    expect(attempts, "the queue's own limit of three dead-letters it").to.deep.equal([0, 1, 2]);
    const errors = lines.filter((line) => line.level === 'error');
    expect(errors).to.have.length(1);
    expect(errors[0]!.message).to.match(
      /^queue limit-changed keeps the delivery limit it was declared with \(3 failures\), not the 6 of MESSAGING_DELIVERY_LIMIT/,
    );
    expect(errors[0]!.fields).to.include({ queue: 'limit-changed', deliveryLimit: 6, queueDeliveryLimit: 3 });
  });

  it('dead-letters a message that is not a known event at once, without calling the handler, and counts it', async () => {
    let calls = 0;
    const registry = new Registry();
    const consumer = new EventConsumer<TestEvent>({
      metrics: new MessagingMetrics(registry),
      broker,
      spec: { queue: 'refuses-garbage', routingKeys: ['test.garbage'] },
      decode: decodeTest,
      handle: async () => {
        calls++;
        return 'applied';
      },
      logger: quietLogger,
    }).start();
    await consumer.ready();
    const publisher = new EventPublisher(broker);
    await publisher.publish({
      id: '6f1c1f6e-0000-4000-8000-000000000000',
      type: 'test.garbage',
      payload: '{"not":"an envelope"',
    });
    await eventually('the dead letter', 10_000, async () => (await depth(deadLetterQueueOf('refuses-garbage'))) === 1);
    await consumer.stop();
    expect(calls).to.equal(0);
    expect(await registry.getSingleMetricAsString('messaging_events_dead_lettered_total')).to.include(
      'messaging_events_dead_lettered_total{reason="not-an-envelope"} 1',
    );
    await publisher.close();
  });

  it('holds a message while its handler fails for a passing reason, without using up its delivery limit', async () => {
    const seen: number[] = [];
    let failuresLeft = 6;
    const consumer = new EventConsumer<TestEvent>({
      broker,
      spec: { queue: 'database-away', routingKeys: ['test.transient'], deliveryLimit: 2 },
      decode: decodeTest,
      handle: async (_event, delivery) => {
        seen.push(delivery.failedDeliveries);
        if (failuresLeft-- > 0) throw new UnavailableError('DATABASE_UNAVAILABLE', 'the database is down');
        return 'applied';
      },
      logger: quietLogger,
      transientRetryMs: 10,
    }).start();
    await consumer.ready();
    const publisher = new EventPublisher(broker);
    const sent = envelope('test.transient');
    await publisher.publish({ id: sent.id, type: sent.type, payload: JSON.stringify(sent) });
    await eventually('the seventh attempt', 10_000, () => seen.length === 7);
    await consumer.stop();
    expect(seen, 'all in one delivery').to.deep.equal([0, 0, 0, 0, 0, 0, 0]);
    expect(await depth('database-away')).to.equal(0);
    expect(await depth(deadLetterQueueOf('database-away'))).to.equal(0);
    await publisher.close();
  });
});
