import type { OutboxEnvelope } from '@platform/kernel';
import { InMemoryDatabase, InMemoryOutbox, InMemoryTable, type OutboxTable } from '@platform/persistence/memory';
import { Database, type Dialect, MikroOrmOutbox, outboxMigrations, outboxMessageSchema } from '@platform/persistence';
import { scratchUrl } from '@platform/test-kit';
import { InMemoryWebhookStore } from '@stock/persistence-memory';
import {
  MikroOrmWebhookStore,
  outboxWebhookFanOutMigration,
  webhookSchemas,
  webhookTablesMigration,
  webhookTraceContextMigration,
  withWebhookFanOut,
} from '@stock/persistence-sql';
import type { WebhookStore } from '@stock/domain';

/** A store with the outbox it fans out from, and a second handle on the same data (another instance). */
export interface StoreHarness {
  readonly store: WebhookStore;
  readonly otherStore: WebhookStore;
  /** Writes events to the outbox in one transaction, as a use case does. */
  write(...events: OutboxEnvelope[]): Promise<void>;
  close(): Promise<void>;
}

export type HarnessFactory = (context: Mocha.Context) => Promise<StoreHarness>;

export function memoryHarness(): HarnessFactory {
  return async () => {
    const database = new InMemoryDatabase();
    const table: OutboxTable = new InMemoryTable();
    const store = new InMemoryWebhookStore(table);
    return {
      store,
      otherStore: store,
      write: (...events) =>
        database.transaction(async (tx) => {
          for (const event of events) await new InMemoryOutbox(table, tx).add(event);
        }),
      close: async () => {},
    };
  };
}

const migrations = (dialect: Dialect) => [
  ...outboxMigrations(dialect),
  { name: 'outbox-webhook-fan-out', class: outboxWebhookFanOutMigration(dialect) },
  { name: 'webhooks', class: webhookTablesMigration(dialect) },
  { name: 'webhook-trace-context', class: webhookTraceContextMigration(dialect) },
];

/** A database with the outbox and the webhook tables, as a service that appends their migrations has. */
export function openWebhookDatabase(url: string): Promise<Database> {
  return Database.open(url, {
    entities: (d) => [withWebhookFanOut(outboxMessageSchema(d), d), ...webhookSchemas(d)],
    migrations: { postgresql: migrations('postgresql'), sqlite: migrations('sqlite') },
    createDatabase: true,
  });
}

export function databaseHarness(dialect: Dialect): HarnessFactory {
  return async (context) => {
    const { url, cleanUp } = await scratchUrl(dialect, context, 'webhooks');
    const database = await openWebhookDatabase(url);
    await database.migrate();
    // Another instance: its own pool, so PostgreSQL sees two clients competing for rows.
    const other = await openWebhookDatabase(url);
    return {
      store: new MikroOrmWebhookStore(database),
      otherStore: new MikroOrmWebhookStore(other),
      write: (...events) =>
        database.transaction(async (session) => {
          for (const event of events) await new MikroOrmOutbox(session).add(event);
        }),
      close: async () => {
        await other.close();
        await database.close();
        await cleanUp();
      },
    };
  };
}

let eventCount = 0;

/** An event as a use case writes it; ids rise, so outbox order is the order of the calls. */
export function anEvent(type: string, data: Record<string, unknown>, occurredAt = Date.now()): OutboxEnvelope {
  eventCount += 1;
  const id = `00000000-0000-4000-8000-${String(eventCount).padStart(12, '0')}`;
  return { id, type, occurredAt: new Date(occurredAt + eventCount).toISOString(), data };
}
