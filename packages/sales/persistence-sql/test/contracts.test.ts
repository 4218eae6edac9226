import { scratchUrl } from '@platform/test-kit';
import { anOrder, orderRepositoryContract } from '@sales/domain/testing';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { openSalesDatabase } from '../src';
import { openScratchStore } from './scratch-stores';

for (const dialect of ['sqlite', 'postgresql'] as const) {
  describe(`MikroOrmOrderRepository on ${dialect}`, () => orderRepositoryContract(openScratchStore(dialect)));
  describe(`MikroOrmOrderRepository on ${dialect}, with orders written before allocations`, () => {
    it('reads their lines as held nowhere yet, and a confirmation adds where', async function () {
      const store = await openScratchStore(dialect)(this);
      try {
        const order = anOrder();
        await store.unitOfWork.run((tx) => tx.orders.add(order));
        // The lines JSON as sales wrote it before stock said where it holds them.
        const lines = order.lines.map(({ productId, name, unitPrice, quantity }) => ({
          productId,
          name,
          unitPriceCents: unitPrice.cents,
          quantity,
        }));
        await store.session.run('update "sales_order" set "lines" = ? where "id" = ?', [
          JSON.stringify(lines),
          order.id,
        ]);
        expect(await store.orders.findById(order.id)).to.deep.equal(order);
        const held = [{ productId: 2, allocations: [{ locationId: 5, quantity: 2 }] }];
        const reserved = order.reservationConfirmed(randomUUID(), new Date(), new Date(), held).order;
        expect(await store.unitOfWork.run((tx) => tx.orders.save(reserved, 1))).to.equal(true);
        expect((await store.orders.findById(order.id))?.lines.map((line) => line.allocations)).to.deep.equal([
          [],
          [{ locationId: 5, quantity: 2 }],
        ]);
      } finally {
        await store.close();
      }
    });
  });
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
