import { MikroOrmOutbox } from '@platform/persistence';
import { scratchUrl } from '@platform/test-kit';
import type { SqlSession } from '@platform/persistence';
import type { SalesStoreUnderTest } from '@sales/domain/testing';
import { MikroOrmOrderRepository, MikroOrmSalesUnitOfWork, openSalesDatabase } from '../src';

/** The suites' store on a fresh, migrated database of the dialect, and its session for rows a test writes itself. */
export function openScratchStore(
  dialect: 'sqlite' | 'postgresql',
): (context: Mocha.Context) => Promise<SalesStoreUnderTest & { readonly session: SqlSession }> {
  return async (context) => {
    const { url, cleanUp } = await scratchUrl(dialect, context, 'sales');
    const database = await openSalesDatabase(url, { createDatabase: true });
    await database.migrate();
    return {
      session: database.session,
      unitOfWork: new MikroOrmSalesUnitOfWork(database, { idempotencyTtlMs: 60_000 }),
      orders: new MikroOrmOrderRepository(database.session),
      outbox: new MikroOrmOutbox(database.session),
      reset: async () => {
        for (const table of ['sales_order', 'idempotency_key', 'outbox_message'])
          await database.session.run(`delete from "${table}"`);
      },
      close: async () => {
        await database.close();
        await cleanUp();
      },
    };
  };
}
