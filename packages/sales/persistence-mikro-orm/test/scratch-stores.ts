import { MikroOrmOutbox } from '@platform/mikro-orm';
import { createScratchDatabase } from '@platform/test-kit';
import type { OpenSalesStore } from '@sales/test-kit';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroOrmOrderRepository, MikroOrmSalesUnitOfWork, openSalesDatabase } from '../src';

/** A database of a dialect, for one suite, removed when the suite cleans it up. */
export async function scratchUrl(dialect: 'sqlite' | 'postgresql', context: Mocha.Context) {
  if (dialect === 'postgresql') {
    const database = await createScratchDatabase(context);
    return { url: database.url, cleanUp: database.drop };
  }
  const directory = mkdtempSync(join(tmpdir(), 'sales-sqlite-'));
  return { url: `sqlite:${join(directory, 'sales.db')}`, cleanUp: async () => rmSync(directory, { recursive: true, force: true }) };
}

/** The suites' store on a fresh, migrated database of the dialect. */
export function openScratchStore(dialect: 'sqlite' | 'postgresql'): OpenSalesStore {
  return async (context) => {
    const { url, cleanUp } = await scratchUrl(dialect, context);
    const database = await openSalesDatabase(url, { createDatabase: true });
    await database.migrate();
    return {
      unitOfWork: new MikroOrmSalesUnitOfWork(database, 60_000),
      orders: new MikroOrmOrderRepository(database.session),
      outbox: new MikroOrmOutbox(database.session),
      reset: async () => {
        for (const table of ['sales_order', 'idempotency_key', 'outbox_message']) await database.session.run(`delete from "${table}"`);
      },
      close: async () => {
        await database.close();
        await cleanUp();
      },
    };
  };
}
