import type { IdempotencyStore, ProductRepository } from '@stock/domain';
import type { PoolStats } from '@stock/http-koa';
import { InMemoryIdempotencyStore, InMemoryProductRepository } from '@stock/persistence-memory';
import { MikroOrmPersistence } from '@stock/persistence-mikro-orm';

/** What the composition root needs of any storage adapter. */
export interface Persistence {
  readonly repository: ProductRepository;
  readonly idempotency: IdempotencyStore;
  readonly poolStats?: () => PoolStats | undefined;
  isReachable(): Promise<boolean>;
  migrate(): Promise<string[]>;
  close(): Promise<void>;
}

export interface PersistenceOptions {
  readonly idempotencyTtlMs: number;
  readonly poolSize?: number;
}

/** The connection string picks the adapter: memory: keeps products in this process, anything else goes to MikroORM. */
export async function openPersistence(databaseUrl: string, { idempotencyTtlMs, poolSize }: PersistenceOptions): Promise<Persistence> {
  if (/^memory:/i.test(databaseUrl)) {
    return {
      repository: new InMemoryProductRepository(),
      idempotency: new InMemoryIdempotencyStore(idempotencyTtlMs),
      isReachable: async () => true,
      migrate: async () => [],
      close: async () => {},
    };
  }
  const orm = await MikroOrmPersistence.open(databaseUrl, { idempotencyTtlMs, ...(poolSize !== undefined && { poolSize }) });
  return {
    repository: orm.repository,
    idempotency: orm.idempotency,
    poolStats: () => orm.poolStats(),
    isReachable: () => orm.isReachable(),
    migrate: () => orm.migrate(),
    close: () => orm.close(),
  };
}
