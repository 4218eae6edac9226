import { Database, MikroOrmOutbox, outboxMessageSchema, outboxMigrations } from '@platform/persistence';
import type { OutboxStore } from '@platform/kernel';
import { inSpan, startTracing, traceCarrier, traceFields, type Tracing } from '@platform/runtime';
import { exportingTo, type OtlpReceiver, startOtlpReceiver } from '@platform/test-kit';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutboxRelay } from '../src';
import { envelope, memoryOutbox, quietLogger } from './support';

interface Written {
  readonly store: OutboxStore;
  write(type: string): Promise<void>;
  close(): Promise<void>;
}

const stores: Record<string, () => Promise<Written>> = {
  memory: async () => {
    const outbox = memoryOutbox();
    return { store: outbox.store, write: (type) => outbox.write(envelope(type)), close: async () => {} };
  },
  SQLite: async () => {
    const directory = mkdtempSync(join(tmpdir(), 'relay-tracing-'));
    const database = await Database.open(`sqlite:${join(directory, 'outbox.db')}`, {
      entities: (d) => [outboxMessageSchema(d)],
      migrations: { postgresql: outboxMigrations('postgresql'), sqlite: outboxMigrations('sqlite') },
      createDatabase: true,
    });
    await database.migrate();
    const outbox = new MikroOrmOutbox(database.session);
    return {
      store: outbox,
      write: (type) => database.transaction((session) => new MikroOrmOutbox(session).add(envelope(type))),
      close: async () => {
        await database.close();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  },
};

describe('the relay with tracing on', () => {
  let restoreEnvironment: () => void;
  let receiver: OtlpReceiver;
  let tracing: Tracing;

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
    restoreEnvironment = exportingTo(receiver.endpoint);
    tracing = await startTracing('relay-test');
  });

  afterEach(async () => {
    await tracing.shutdown();
    restoreEnvironment();
    await receiver.close();
  });

  for (const [name, open] of Object.entries(stores)) {
    it(`publishes, on ${name}, in a span continuing the trace stored on the outbox row, with its traceparent on the message`, async () => {
      const outbox = await open();
      try {
        const writer = await inSpan('request', {}, async () => {
          await outbox.write('thing.happened');
          return traceFields();
        });
        const [claimed] = await outbox.store.claim(1, 1_000, Date.now());
        await outbox.store.retryLater(claimed!.id, 0, 0);
        expect((JSON.parse(claimed!.traceContext!) as { traceparent: string }).traceparent).to.include(writer!.traceId);
        const sent: (Record<string, string> | undefined)[] = [];
        const publisher = { publish: async () => void sent.push(traceCarrier()) };
        await new OutboxRelay({ store: outbox.store, publisher, logger: quietLogger }).relayOnce();
        await tracing.shutdown();

        const spans = receiver.spans;
        const request = spans.find((s) => s.name === 'request')!;
        const write = spans.find((s) => s.name === 'outbox write thing.happened')!;
        const publish = spans.find((s) => s.name === 'publish thing.happened')!;
        expect(write).to.include({ traceId: writer!.traceId, parentSpanId: request.spanId });
        expect(publish).to.include({ traceId: writer!.traceId, parentSpanId: write.spanId, kind: 4 });
        expect(sent).to.have.length(1);
        expect(sent[0]!.traceparent).to.equal(`00-${publish.traceId}-${publish.spanId}-01`);
      } finally {
        await outbox.close();
      }
    });
  }
});
