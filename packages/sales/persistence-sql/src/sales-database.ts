import { Database, type DatabaseLogger } from '@platform/persistence';
import { salesMigrations } from './migrations';
import { salesEntities } from './orders/order-schema';

export interface SalesDatabaseOptions {
  readonly poolSize?: number;
  readonly queryTimeoutMs?: number;
  readonly acquireTimeoutMs?: number;
  readonly createDatabase?: boolean;
  readonly logger?: DatabaseLogger;
}

/** The sales service's database: its tables' mapping and its migrations, on SQLite or PostgreSQL by URL. */
export function openSalesDatabase(url: string, options: SalesDatabaseOptions = {}): Promise<Database> {
  return Database.open(url, {
    entities: salesEntities,
    migrations: { postgresql: salesMigrations('postgresql'), sqlite: salesMigrations('sqlite') },
    ...options,
  });
}
