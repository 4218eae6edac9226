import { Database } from '@platform/mikro-orm';
import { postgresqlMigrations } from './migrations/postgresql';
import { sqliteMigrations } from './migrations/sqlite';
import { stockEntities } from './product-schema';

export interface StockDatabaseOptions {
  /** Largest number of pooled connections (PostgreSQL). */
  readonly poolSize?: number;
  readonly debug?: boolean;
}

/** The stock service's database: its tables' mapping and its migrations, on SQLite or PostgreSQL by URL. */
export function openStockDatabase(url: string, options: StockDatabaseOptions = {}): Promise<Database> {
  return Database.open(url, { entities: stockEntities, migrations: { postgresql: postgresqlMigrations, sqlite: sqliteMigrations }, ...options });
}
