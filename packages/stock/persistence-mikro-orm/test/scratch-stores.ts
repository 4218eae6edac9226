import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase } from '@platform/test-kit';
import { MikroOrmOutbox } from '@platform/mikro-orm';
import { CONTRACT_TTL_MS, type OpenStockStore } from '@stock/test-kit';
import { MikroOrmProductRepository, MikroOrmReservationRepository, MikroOrmStockMovementRepository, MikroOrmUnitOfWork, openStockDatabase } from '../src';

/** A migrated database of a dialect, for one suite, removed when the suite closes it. */
export async function scratchUrl(dialect: 'sqlite' | 'postgresql', context: Mocha.Context): Promise<{ url: string; cleanUp: () => Promise<void> }> {
  if (dialect === 'postgresql') {
    const database = await createScratchDatabase(context);
    return { url: database.url, cleanUp: database.drop };
  }
  const directory = mkdtempSync(join(tmpdir(), 'stock-sqlite-'));
  return { url: `sqlite:${join(directory, 'stock.db')}`, cleanUp: async () => rmSync(directory, { recursive: true, force: true }) };
}

/** The contract suites' store on a fresh, migrated database of the dialect. */
export function openScratchStore(dialect: 'sqlite' | 'postgresql'): OpenStockStore {
  return async (context, now) => {
    const { url, cleanUp } = await scratchUrl(dialect, context);
    const database = await openStockDatabase(url, { createDatabase: true });
    await database.migrate();
    return {
      unitOfWork: new MikroOrmUnitOfWork(database, CONTRACT_TTL_MS, now),
      products: new MikroOrmProductRepository(database.session),
      reservations: new MikroOrmReservationRepository(database.session),
      movements: new MikroOrmStockMovementRepository(database.session),
      outbox: new MikroOrmOutbox(database.session),
      reset: async () => {
        for (const table of ['product', 'stock_movement', 'reservation', 'idempotency_key', 'outbox_message']) await database.session.run(`delete from "${table}"`);
      },
      close: async () => {
        await database.close();
        await cleanUp();
      },
    };
  };
}
