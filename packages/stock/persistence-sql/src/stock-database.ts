import { Database, type DatabaseLogger } from '@platform/persistence';
import { STOCK_MIGRATIONS } from './migrations';
import { ADJUST_AT_ONCE_ROUTINE } from './stock/adjust-at-once';
import { stockEntities } from './tables/stock-tables';

export interface StockDatabaseOptions {
  /** Largest number of pooled connections (PostgreSQL). */
  readonly poolSize?: number;
  readonly queryTimeoutMs?: number;
  readonly acquireTimeoutMs?: number;
  /** Create the database or file when it is missing, instead of refusing to start. */
  readonly createDatabase?: boolean;
  readonly logger?: DatabaseLogger;
  readonly debug?: boolean;
}

/** The stock service's database: its tables' mapping and its migrations, on SQLite or PostgreSQL by URL. */
export function openStockDatabase(url: string, options: StockDatabaseOptions = {}): Promise<Database> {
  return Database.open(url, {
    entities: stockEntities,
    migrations: STOCK_MIGRATIONS,
    // SQLite's search index: the FTS5 table and the shadow tables it keeps (product_search_data, _idx, …), and the
    // triggers that keep it, which its migration makes: no mapping can describe a virtual table.
    unmappedTables: [/^product_search(_\w+)?$/],
    unmappedTriggers: 'sqlite',
    // PostgreSQL's adjustment at once: a function, described once (adjust-at-once.ts), generated into the migrations.
    routines: (dialect) => (dialect === 'postgresql' ? [ADJUST_AT_ONCE_ROUTINE] : []),
    ...options,
  });
}
