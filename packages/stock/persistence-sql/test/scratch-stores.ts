import { scratchUrl } from '@platform/test-kit';
import { MikroOrmOutbox } from '@platform/persistence';
import type { Database } from '@platform/persistence';
import { CONTRACT_TTL_MS, type OpenStockStore, type StockStoreUnderTest, traceSlot } from '@stock/domain/testing';
import {
  SqlLocationRepository,
  SqlProductRepository,
  SqlProductStockRepository,
  SqlReservationRepository,
  SqlReturnRepository,
  SqlShipmentRepository,
  SqlStockMovementRepository,
  SqlTransferRepository,
  SqlUnitOfWork,
  type SqlUnitOfWorkOptions,
  openStockDatabase,
} from '../src';

/** What a reset empties, children before the rows they reference; the default location stays. */
const TABLES = [
  'shipment_line',
  'shipment',
  'stock_return_line',
  'stock_return',
  'reservation_allocation',
  'reservation_backorder',
  'reservation',
  'stock_level',
  'product',
  'stock_movement',
  'stock_transfer',
  'idempotency_key',
  'outbox_message',
];

/** The SQL adapters of every stock port, over one database, with a unit of work of these options. */
export function sqlStockStore(
  database: Database,
  options: SqlUnitOfWorkOptions,
): Omit<StockStoreUnderTest, 'reset' | 'close'> {
  const session = database.session;
  return {
    unitOfWork: new SqlUnitOfWork(database, options),
    products: new SqlProductRepository(session),
    locations: new SqlLocationRepository(session),
    stock: new SqlProductStockRepository(session),
    transfers: new SqlTransferRepository(session),
    reservations: new SqlReservationRepository(session),
    movements: new SqlStockMovementRepository(session),
    shipments: new SqlShipmentRepository(session),
    returns: new SqlReturnRepository(session),
    outbox: new MikroOrmOutbox(session),
  };
}

/** The contract suites' store on a fresh, migrated database of the dialect. */
export function openScratchStore(dialect: 'sqlite' | 'postgresql'): OpenStockStore {
  return async (context, now) => {
    const { url, cleanUp } = await scratchUrl(dialect, context, 'stock');
    const database = await openStockDatabase(url, { createDatabase: true });
    await database.migrate();
    const { traceId, withTrace } = traceSlot();
    return {
      ...sqlStockStore(database, { idempotencyTtlMs: CONTRACT_TTL_MS, now, traceId }),
      withTrace,
      reset: async () => {
        for (const table of TABLES) await database.session.run(`delete from "${table}"`);
        await database.session.run('delete from "location" where "id" <> 1');
      },
      close: async () => {
        await database.close();
        await cleanUp();
      },
    };
  };
}
