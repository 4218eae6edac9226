import type { OutboxStore, UnitOfWork } from '@platform/kernel';
import { type Database, MikroOrmOutbox } from '@platform/persistence';
import { type Logger, mayCreateDatabase } from '@platform/runtime';
import type { DependencyContainer } from 'tsyringe';
import type { ServiceSettings } from './service-settings';
import { type OutboxTransaction, ServiceTokens, serviceTokens } from './service-tokens';
import type { Binding } from './single';

/** How a service's database is opened, as its persistence package opens it. */
export type OpenDatabase = (url: string, options: DatabaseOptions) => Promise<Database>;

export interface DatabaseOptions {
  readonly poolSize: number;
  readonly queryTimeoutMs: number;
  readonly acquireTimeoutMs: number;
  readonly createDatabase: boolean;
  readonly logger: Logger;
}

/** A service's unit of work and its repositories (for reads outside any unit of work), on one storage. */
export interface StorageParts<Tx> {
  readonly unitOfWork: UnitOfWork<Tx>;
  readonly repositories: readonly Binding[];
}

/** The service's adapters for each kind of storage DATABASE_URL may name. */
export interface ServiceStorage<Tx extends OutboxTransaction> {
  /** The embedded database the service may create by itself (DB_CREATE_DATABASE=auto). */
  readonly defaultDatabaseUrl: string;
  /** `memory:`: everything in this process, the outbox too. */
  memory(idempotencyTtlMs: number): StorageParts<Tx> & { readonly outbox: OutboxStore };
  open: OpenDatabase;
  /** SQLite or PostgreSQL: the outbox is the platform's table. */
  database(database: Database, idempotencyTtlMs: number): StorageParts<Tx>;
}

function registerParts<Tx extends OutboxTransaction>(
  container: DependencyContainer,
  parts: StorageParts<Tx>,
  outbox: OutboxStore,
): void {
  container.register(serviceTokens<Tx>().UnitOfWork, { useValue: parts.unitOfWork });
  for (const repository of parts.repositories) repository.register(container);
  container.register(ServiceTokens.OutboxStore, { useValue: outbox });
}

/** The storage the connection string names: `memory:` keeps everything in this process, anything else is a database. */
export async function registerStorage<Tx extends OutboxTransaction>(
  container: DependencyContainer,
  config: ServiceSettings,
  storage: ServiceStorage<Tx>,
  logger: Logger,
): Promise<void> {
  const idempotencyTtlMs = config.idempotencyTtlSeconds * 1000;
  if (/^memory:/i.test(config.databaseUrl)) {
    const memory = storage.memory(idempotencyTtlMs);
    registerParts(container, memory, memory.outbox);
    return;
  }
  const database = await storage.open(config.databaseUrl, {
    poolSize: config.dbPoolSize,
    queryTimeoutMs: config.dbQueryTimeoutMs,
    acquireTimeoutMs: config.dbAcquireTimeoutMs,
    createDatabase: mayCreateDatabase(config, storage.defaultDatabaseUrl),
    logger,
  });
  container.register(ServiceTokens.Database, { useValue: database });
  registerParts(container, storage.database(database, idempotencyTtlMs), new MikroOrmOutbox(database.session));
}
