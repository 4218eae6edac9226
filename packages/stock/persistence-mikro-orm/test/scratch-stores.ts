import { scratchUrl } from '@platform/test-kit';
import { MikroOrmOutbox } from '@platform/mikro-orm';
import { CONTRACT_TTL_MS, type OpenStockStore } from '@stock/test-kit';
import {
  MikroOrmProductRepository,
  MikroOrmReservationRepository,
  MikroOrmStockMovementRepository,
  MikroOrmUnitOfWork,
  openStockDatabase,
} from '../src';

/** The contract suites' store on a fresh, migrated database of the dialect. */
export function openScratchStore(dialect: 'sqlite' | 'postgresql'): OpenStockStore {
  return async (context, now) => {
    const { url, cleanUp } = await scratchUrl(dialect, context, 'stock');
    const database = await openStockDatabase(url, { createDatabase: true });
    await database.migrate();
    return {
      unitOfWork: new MikroOrmUnitOfWork(database, CONTRACT_TTL_MS, now),
      products: new MikroOrmProductRepository(database.session),
      reservations: new MikroOrmReservationRepository(database.session),
      movements: new MikroOrmStockMovementRepository(database.session),
      outbox: new MikroOrmOutbox(database.session),
      reset: async () => {
        for (const table of ['product', 'stock_movement', 'reservation', 'idempotency_key', 'outbox_message'])
          await database.session.run(`delete from "${table}"`);
      },
      close: async () => {
        await database.close();
        await cleanUp();
      },
    };
  };
}
