import type { Outbox, OutboxEnvelope, OutboxStore, UnitOfWork } from '@platform/kernel';
import {
  InMemoryDatabase,
  InMemoryOutbox,
  InMemoryOutboxStore,
  InMemoryTable,
  type OutboxTable,
} from '@platform/persistence/memory';
import { randomUUID } from 'node:crypto';
import type { AsyncMessage, Consumer } from 'rabbitmq-client';
import { type Broker, EVENTS_EXCHANGE, type MessagingLogger } from '../src/index';

export const quietLogger: MessagingLogger & {
  lines: { level: string; message: string; fields?: Record<string, unknown> }[];
} = {
  lines: [],
  info(message, fields) {
    this.lines.push({ level: 'info', message, ...(fields && { fields }) });
  },
  warn(message, fields) {
    this.lines.push({ level: 'warn', message, ...(fields && { fields }) });
  },
  error(message, fields) {
    this.lines.push({ level: 'error', message, ...(fields && { fields }) });
  },
};

export function envelope(type: string, data: unknown = {}, occurredAt = new Date()): OutboxEnvelope {
  return { id: randomUUID(), type, occurredAt: occurredAt.toISOString(), data };
}

/** An in-memory outbox: what a use case writes to (through its unit of work), and what a relay reads. */
export function memoryOutbox(): {
  store: OutboxStore;
  unitOfWork: UnitOfWork<{ outbox: Outbox }>;
  write(...envelopes: OutboxEnvelope[]): Promise<void>;
} {
  const database = new InMemoryDatabase();
  const table: OutboxTable = new InMemoryTable();
  const unitOfWork: UnitOfWork<{ outbox: Outbox }> = {
    run: (work) => database.transaction((tx) => work({ outbox: new InMemoryOutbox(table, tx) })),
  };
  return {
    store: new InMemoryOutboxStore(database, table),
    unitOfWork,
    write: (...envelopes) =>
      unitOfWork.run(async ({ outbox }) => {
        for (const e of envelopes) await outbox.add(e);
      }),
  };
}

/** A queue of the test's own, bound to `routingKeys`, that keeps every message it receives. */
export function collect(
  broker: Broker,
  queue: string,
  routingKeys: readonly string[],
): { messages: AsyncMessage[]; ready: Promise<void>; close(): Promise<void> } {
  const messages: AsyncMessage[] = [];
  const consumer: Consumer = broker.connection.createConsumer(
    {
      queue,
      queueOptions: { queue, durable: true },
      exchanges: [{ exchange: EVENTS_EXCHANGE, type: 'topic', durable: true }],
      queueBindings: routingKeys.map((routingKey) => ({ queue, exchange: EVENTS_EXCHANGE, routingKey })),
    },
    (message) => {
      messages.push(message);
    },
  );
  consumer.on('error', () => undefined);
  const ready = new Promise<void>((resolve) => consumer.once('ready', resolve));
  return { messages, ready, close: () => consumer.close() };
}
