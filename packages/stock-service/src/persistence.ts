import type { ProductRepository } from '@stock/domain';
import { InMemoryProductRepository } from '@stock/persistence-memory';
import { MikroOrmPersistence } from '@stock/persistence-mikro-orm';

/** What the composition root needs of any storage adapter. */
export interface Persistence {
  readonly repository: ProductRepository;
  readonly requestScope?: <T>(next: () => Promise<T>) => Promise<T>;
  migrate(): Promise<string[]>;
  close(): Promise<void>;
}

/** The connection string picks the adapter: memory: keeps products in this process, anything else goes to MikroORM. */
export async function openPersistence(databaseUrl: string): Promise<Persistence> {
  if (/^memory:/i.test(databaseUrl)) {
    return { repository: new InMemoryProductRepository(), migrate: async () => [], close: async () => {} };
  }
  const orm = await MikroOrmPersistence.open(databaseUrl);
  return {
    repository: orm.repository,
    requestScope: (next) => orm.requestScope(next),
    migrate: () => orm.migrate(),
    close: () => orm.close(),
  };
}
