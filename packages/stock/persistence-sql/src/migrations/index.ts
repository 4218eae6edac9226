import type { MigrationObject } from '@mikro-orm/core';
import type { Dialect } from '@platform/persistence';
import { postgresqlMigrations as postgresqlHistory } from './history/postgresql';
import { sqliteMigrations as sqliteHistory } from './history/sqlite';
import { Postgresql20261129AdjustAtOnceFunction } from './generated/20261129-adjust-at-once-function.postgresql';
import { Postgresql20261129BackorderAtItsLineLocation } from './generated/20261129-backorder-at-its-line-location.postgresql';
import { Sqlite20261129BackorderAtItsLineLocation } from './generated/20261129-backorder-at-its-line-location.sqlite';
import { Postgresql20261129LedgerWithoutWriteContext } from './generated/20261129-ledger-without-write-context.postgresql';
import { Sqlite20261129LedgerWithoutWriteContext } from './generated/20261129-ledger-without-write-context.sqlite';
import { Postgresql20261129NamedStockStates } from './generated/20261129-named-stock-states.postgresql';
import { Sqlite20261129NamedStockStates } from './generated/20261129-named-stock-states.sqlite';
import { Postgresql20261129ShipmentsAndReturns } from './generated/20261129-shipments-and-returns.postgresql';
import { Sqlite20261129ShipmentsAndReturns } from './generated/20261129-shipments-and-returns.sqlite';
import { Postgresql20261129WebhookRetentionIndexes } from './generated/20261129-webhook-retention-indexes.postgresql';
import { Sqlite20261129WebhookRetentionIndexes } from './generated/20261129-webhook-retention-indexes.sqlite';
import { Postgresql20261129TransferListIndexes } from './generated/20261129-transfer-list-indexes.postgresql';
import { Sqlite20261129TransferListIndexes } from './generated/20261129-transfer-list-indexes.sqlite';
import { ledgerTriggersDropped } from './ledger-triggers-dropped';
import { NAMED_STOCK_STATES } from './named-stock-states';

/**
 * The stock database's migrations, in the order they run. The history
 * (history/, hand-written per dialect until 2026-11-25) stays as it was: a
 * database made by it migrates forward from wherever it stopped. Every
 * migration after it is generated from the tables' one description
 * (tables/*.ts) by `pnpm db:migration <name>`, per dialect (generated/), but
 * for the steps no schema diff can see or write (ledger-triggers-dropped.ts,
 * named-stock-states.ts).
 */
export const STOCK_MIGRATIONS: Readonly<Record<Dialect, readonly MigrationObject[]>> = {
  postgresql: [
    ...postgresqlHistory,
    { name: '20261129-ledger-triggers-dropped', class: ledgerTriggersDropped('postgresql') },
    { name: '20261129-ledger-without-write-context', class: Postgresql20261129LedgerWithoutWriteContext },
    { name: '20261129-backorder-at-its-line-location', class: Postgresql20261129BackorderAtItsLineLocation },
    { name: '20261129-adjust-at-once-function', class: Postgresql20261129AdjustAtOnceFunction },
    ...NAMED_STOCK_STATES.before('postgresql'),
    { name: '20261129-named-stock-states', class: Postgresql20261129NamedStockStates },
    NAMED_STOCK_STATES.after(),
    { name: '20261129-shipments-and-returns', class: Postgresql20261129ShipmentsAndReturns },
    { name: '20261129-webhook-retention-indexes', class: Postgresql20261129WebhookRetentionIndexes },
    { name: '20261129-transfer-list-indexes', class: Postgresql20261129TransferListIndexes },
  ],
  sqlite: [
    ...sqliteHistory,
    { name: '20261129-ledger-triggers-dropped', class: ledgerTriggersDropped('sqlite') },
    { name: '20261129-ledger-without-write-context', class: Sqlite20261129LedgerWithoutWriteContext },
    { name: '20261129-backorder-at-its-line-location', class: Sqlite20261129BackorderAtItsLineLocation },
    ...NAMED_STOCK_STATES.before('sqlite'),
    { name: '20261129-named-stock-states', class: Sqlite20261129NamedStockStates },
    NAMED_STOCK_STATES.after(),
    { name: '20261129-shipments-and-returns', class: Sqlite20261129ShipmentsAndReturns },
    { name: '20261129-webhook-retention-indexes', class: Sqlite20261129WebhookRetentionIndexes },
    { name: '20261129-transfer-list-indexes', class: Sqlite20261129TransferListIndexes },
  ],
};
