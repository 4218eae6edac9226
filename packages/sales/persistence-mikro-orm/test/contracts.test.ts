import { MikroOrmOutbox } from '@platform/mikro-orm';
import { createScratchDatabase } from '@platform/test-kit';
import { type OpenSalesStore, orderRepositoryContract, salesUseCaseContract } from '@sales/test-kit';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroOrmOrderRepository, MikroOrmSalesUnitOfWork, openSalesDatabase } from '../src';

async function scratchUrl(dialect: 'sqlite' | 'postgresql', context: Mocha.Context) {
  if (dialect === 'postgresql') {
    const database = await createScratchDatabase(context);
    return { url: database.url, cleanUp: database.drop };
  }
  const directory = mkdtempSync(join(tmpdir(), 'sales-sqlite-'));
  return { url: `sqlite:${join(directory, 'sales.db')}`, cleanUp: async () => rmSync(directory, { recursive: true, force: true }) };
}

function openScratchStore(dialect: 'sqlite' | 'postgresql'): OpenSalesStore {
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

for (const dialect of ['sqlite', 'postgresql'] as const) {
  describe(`MikroOrmOrderRepository on ${dialect}`, () => orderRepositoryContract(openScratchStore(dialect)));
  describe(`Sales use cases on ${dialect}`, () => salesUseCaseContract(openScratchStore(dialect)));
  describe(`sales migrations on ${dialect}`, () => {
    it('leave nothing for the schema generator to change: the mapping and the migrations agree', async function () {
      const { url, cleanUp } = await scratchUrl(dialect, this);
      const database = await openSalesDatabase(url, { createDatabase: true });
      try {
        await database.migrate();
        expect((await database.orm.schema.getUpdateSchemaSQL({ wrap: false })).trim()).to.equal('');
      } finally {
        await database.close();
        await cleanUp();
      }
    });
  });
}
