import { adminQuery, createScratchDatabase } from '@platform/test-kit';
import { expect } from 'chai';
import { openSalesDatabase } from '../src';
import { salesMigrations } from '../src/migrations';

describe('sales migrations with instances starting together on PostgreSQL', () => {
  const names = salesMigrations('postgresql').map((migration) => migration.name);

  it('apply each migration once, whichever instance wins the lock, and none of the others fails', async function () {
    const database = await createScratchDatabase(this);
    const instances = await Promise.all([1, 2, 3].map(() => openSalesDatabase(database.url)));
    try {
      const applied = await Promise.all(instances.map((instance) => instance.migrate()));
      expect(applied.flat()).to.deep.equal(names);
      const recorded = await adminQuery('select "name" from "mikro_orm_migrations" order by "id"', database.url);
      expect(recorded.map((row) => String(row.name).replace(/\.[jt]s$/, ''))).to.deep.equal(names);
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
      await database.drop();
    }
  });

  it('create a missing database once and migrate it once, however many instances race to do both', async function () {
    const database = await createScratchDatabase(this);
    await database.drop();
    const instances = await Promise.all([1, 2, 3].map(() => openSalesDatabase(database.url, { createDatabase: true })));
    try {
      const applied = await Promise.all(instances.map((instance) => instance.migrate()));
      expect(applied.flat()).to.deep.equal(names);
      const [orders] = await adminQuery('select count(*)::int as "n" from "sales_order"', database.url);
      expect(orders).to.deep.equal({ n: 0 });
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
      await database.drop();
    }
  });
});
