import { scratchUrl } from '@platform/test-kit';
import { orderRepositoryContract } from '@sales/test-kit';
import { expect } from 'chai';
import { openSalesDatabase } from '../src';
import { openScratchStore } from './scratch-stores';

for (const dialect of ['sqlite', 'postgresql'] as const) {
  describe(`MikroOrmOrderRepository on ${dialect}`, () => orderRepositoryContract(openScratchStore(dialect)));
  describe(`sales migrations on ${dialect}`, () => {
    it('leave nothing for the schema generator to change: the mapping and the migrations agree', async function () {
      const { url, cleanUp } = await scratchUrl(dialect, this, 'sales');
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
