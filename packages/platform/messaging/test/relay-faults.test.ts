import {
  createScratchDatabase,
  createScratchVhost,
  eventually,
  restartRabbitmq,
  type ScratchDatabase,
  type ScratchVhost,
} from '@platform/test-kit';
import { type IdempotencyRecords, type OutboxEnvelope, runOnce, type UnitOfWork } from '@platform/kernel';
import {
  type IdempotencyTable,
  InMemoryDatabase,
  InMemoryIdempotencyRecords,
  InMemoryTable,
} from '@platform/persistence/memory';
import { Database, MikroOrmOutbox, outboxMigrations, outboxMessageSchema } from '@platform/persistence';
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Broker, type Decoded, EventConsumer, EventPublisher, OutboxRelay } from '../src/index';
import { envelope, quietLogger } from './support';

const MIGRATIONS = {
  postgresql: outboxMigrations('postgresql'),
  sqlite: outboxMigrations('sqlite'),
};

const openOutbox = (url: string) =>
  Database.open(url, { entities: (d) => [outboxMessageSchema(d)], migrations: MIGRATIONS });

function decodeAny(body: unknown): Decoded<OutboxEnvelope> {
  const value = (Buffer.isBuffer(body) ? JSON.parse(String(body)) : body) as OutboxEnvelope;
  return { ok: true, event: value };
}

/**
 * A consumer with an inbox, as the services have: the message id is claimed
 * in the same (in-memory) transaction as the effect, so a twin has none.
 * Answers the effects by event id.
 */
function inboxConsumer(
  broker: Broker,
  queue: string,
  routingKeys: string[],
): { effects: Map<string, number>; consumer: EventConsumer<OutboxEnvelope> } {
  const database = new InMemoryDatabase();
  const inbox: IdempotencyTable = new InMemoryTable();
  const effects = new Map<string, number>();
  const unitOfWork: UnitOfWork<{ idempotency: IdempotencyRecords }> = {
    run: (work) =>
      database.transaction((tx) =>
        work({ idempotency: new InMemoryIdempotencyRecords(inbox, tx, 86_400_000, Date.now) }),
      ),
  };
  const consumer = new EventConsumer<OutboxEnvelope>({
    broker,
    spec: { queue, routingKeys },
    decode: decodeAny,
    handle: async (event) => {
      const { replayed } = await runOnce(
        unitOfWork,
        { scope: queue, key: event.id, fingerprint: event.type },
        { serialise: () => '', deserialise: () => '' },
        async () => {
          effects.set(event.id, (effects.get(event.id) ?? 0) + 1);
          return '';
        },
      );
      return replayed ? 'duplicate' : 'applied';
    },
    logger: quietLogger,
  }).start();
  return { effects, consumer };
}

describe('RabbitMQ messaging: relays under faults, on PostgreSQL', function () {
  this.timeout(120_000);
  let vhost: ScratchVhost;
  let scratch: ScratchDatabase;
  let database: Database;
  let broker: Broker;

  before(async function () {
    vhost = await createScratchVhost(this);
    scratch = await createScratchDatabase(this);
    database = await openOutbox(scratch.url);
    await database.migrate();
    broker = new Broker({ url: vhost.url, connectionName: 'relay fault tests', logger: quietLogger });
    await broker.waitUntilConnected(10_000);
  });
  after(async () => {
    await broker?.close();
    await database?.close();
    await scratch?.drop();
    await vhost?.drop();
  });
  beforeEach(async () => void (await database.session.run('delete from "outbox_message"')));

  const write = (...events: OutboxEnvelope[]) =>
    database.transaction(async (session) => {
      for (const e of events) await new MikroOrmOutbox(session).add(e);
    });

  it('publishes each row once with two relays on one outbox, each with its own pool', async () => {
    const { effects, consumer } = inboxConsumer(broker, 'two-relays', ['test.two']);
    await consumer.ready();
    const other = await openOutbox(scratch.url);
    const deliveries: string[] = [];
    const counting = {
      publish: async (e: { id: string; type: string; payload: string }) => {
        deliveries.push(e.id);
        await publisher.publish(e);
      },
    };
    const publisher = new EventPublisher(broker);
    const relays = [
      new OutboxRelay({
        store: new MikroOrmOutbox(database.session),
        publisher: counting,
        logger: quietLogger,
        batchSize: 10,
        pollMs: 5,
      }),
      new OutboxRelay({
        store: new MikroOrmOutbox(other.session),
        publisher: counting,
        logger: quietLogger,
        batchSize: 10,
        pollMs: 5,
      }),
    ];
    relays.forEach((relay) => relay.start());
    const events = Array.from({ length: 300 }, () => envelope('test.two'));
    for (let i = 0; i < events.length; i += 30) await write(...events.slice(i, i + 30));
    await eventually('every event consumed', 30_000, () => effects.size === 300);
    await Promise.all(relays.map((relay) => relay.stop()));
    await consumer.stop();
    await publisher.close();
    await other.close();
    expect(deliveries, 'no row published twice').to.have.length(300);
    expect(new Set(deliveries).size).to.equal(300);
  });

  it('loses nothing when the relay is killed between the confirm and the mark: the rows go out again after their lease, and the inbox drops the twins', async () => {
    const { effects, consumer } = inboxConsumer(broker, 'killed-relay', ['test.killed']);
    await consumer.ready();
    const events = Array.from({ length: 20 }, () => envelope('test.killed'));
    await write(...events);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./relay-process.ts', import.meta.url))],
      {
        env: { ...process.env, OUTBOX_DATABASE_URL: scratch.url, AMQP_URL: vhost.url },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      let output = '';
      child.stdout.on('data', (chunk) => (output += String(chunk)));
      await eventually('the relay process to have its confirms', 30_000, () => output.includes('confirmed 20'));
      child.kill('SIGKILL');
      await once(child, 'exit');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await eventually('the first publication consumed', 10_000, () => effects.size === 20);
    expect(await new MikroOrmOutbox(database.session).countUnpublished(), 'never marked').to.equal(20);
    const publisher = new EventPublisher(broker);
    const relay = new OutboxRelay({
      store: new MikroOrmOutbox(database.session),
      publisher,
      logger: quietLogger,
      pollMs: 50,
    }).start();
    await eventually(
      'the rows published again once their lease ended',
      15_000,
      async () => (await new MikroOrmOutbox(database.session).countUnpublished()) === 0,
    );
    await relay.stop();
    await publisher.close();
    // Let the twins arrive, then stop: stopping waits for the handlers in flight.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await consumer.stop();
    expect([...effects.keys()].sort()).to.deep.equal(events.map((e) => e.id).sort());
    expect(
      [...effects.values()].every((n) => n === 1),
      'one effect per event',
    ).to.equal(true);
  });

  it('publishes and consumes every event when RabbitMQ restarts while events flow', async () => {
    const { effects, consumer } = inboxConsumer(broker, 'broker-restart', ['test.restart']);
    await consumer.ready();
    const publisher = new EventPublisher(broker);
    const relay = new OutboxRelay({
      store: new MikroOrmOutbox(database.session),
      publisher,
      logger: quietLogger,
      pollMs: 50,
      backoffMs: 100,
      maxBackoffMs: 1_000,
      publishTimeoutMs: 2_000,
    }).start();
    const written: string[] = [];
    const writer = (async () => {
      for (let i = 0; i < 150; i++) {
        const event = envelope('test.restart');
        await write(event);
        written.push(event.id);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await eventually('events flowing', 10_000, () => effects.size >= 30);
    await restartRabbitmq(1_000);
    await writer;
    await eventually('every event consumed after the restart', 60_000, () => effects.size === 150);
    await eventually(
      'the backlog drained',
      30_000,
      async () => (await new MikroOrmOutbox(database.session).countUnpublished()) === 0,
    );
    await relay.stop();
    await consumer.stop();
    await publisher.close();
    expect([...effects.keys()].sort()).to.deep.equal([...written].sort());
    expect([...effects.values()].every((n) => n === 1)).to.equal(true);
  });
});
