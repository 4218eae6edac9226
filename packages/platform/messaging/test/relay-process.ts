/**
 * A relay in a process of its own, for the test that kills it with SIGKILL
 * between the broker's confirm and the outbox's mark. Its store says
 * "confirmed" on stdout when it is about to mark rows published, then waits
 * before marking: the window the parent kills it in.
 */
import { Database, MikroOrmOutbox, outboxMigrations, outboxMessageSchema } from '@platform/persistence';
import type { OutboxStore } from '@platform/kernel';
import { Broker, EventPublisher, OutboxRelay } from '../src/index';

const { OUTBOX_DATABASE_URL, AMQP_URL } = process.env;
if (!OUTBOX_DATABASE_URL || !AMQP_URL) throw new Error('OUTBOX_DATABASE_URL and AMQP_URL are required');

const database = await Database.open(OUTBOX_DATABASE_URL, {
  entities: (d) => [outboxMessageSchema(d)],
  migrations: {
    postgresql: outboxMigrations('postgresql'),
    sqlite: outboxMigrations('sqlite'),
  },
});
const outbox = new MikroOrmOutbox(database.session);
const slowToMark: OutboxStore = {
  claim: (...args) => outbox.claim(...args),
  retryLater: (...args) => outbox.retryLater(...args),
  countUnpublished: () => outbox.countUnpublished(),
  deletePublished: (...args) => outbox.deletePublished(...args),
  async markPublished(ids, now) {
    process.stdout.write(`confirmed ${ids.length}\n`);
    await new Promise((resolve) => setTimeout(resolve, 30_000));
    return outbox.markPublished(ids, now);
  },
};
const silent = { info() {}, warn() {}, error() {} };
const broker = new Broker({ url: AMQP_URL, connectionName: 'relay process', logger: silent });
const relay = new OutboxRelay({
  store: slowToMark,
  publisher: new EventPublisher(broker),
  logger: silent,
  leaseMs: 2_000,
});
await relay.relayOnce();
