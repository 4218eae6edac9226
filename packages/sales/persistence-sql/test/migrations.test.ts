import { adminQuery, createScratchDatabase, scratchUrl } from '@platform/test-kit';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomUUID } from 'node:crypto';
import { MikroOrmOrderRepository, openSalesDatabase } from '../src';
import { salesMigrations } from '../src/migrations';

chai.use(chaiAsPromised);
const { expect } = chai;

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

/** The last migration before fulfilment: a database it made has `completed` orders and lines without their counts. */
const BEFORE_FULFILMENT = '20261125-outbox-trace-context';

for (const dialect of ['sqlite', 'postgresql'] as const) {
  describe(`sales migrations from before fulfilment on ${dialect}`, () => {
    it('turn completed orders into shipped ones, every unit shipped, and give every other line nothing shipped or returned', async function () {
      const { url, cleanUp } = await scratchUrl(dialect, this, 'sales');
      const database = await openSalesDatabase(url, { createDatabase: true });
      const at = (iso: string) => (dialect === 'postgresql' ? iso : Date.parse(iso));
      const placedAt = '2026-11-24T10:00:00.000Z';
      const line = (productId: number, quantity: number, allocations?: unknown[]) => ({
        productId,
        name: `Product ${productId}`,
        unitPriceCents: 1999,
        quantity,
        ...(allocations && { allocations }),
      });
      // The lines as sales wrote them before shipments: with allocations, or from before those too; not in id order.
      const lines = [line(9, 3, [{ locationId: 2, quantity: 3 }]), line(2, 1, []), line(5, 2)];
      const orders = {
        completed: '00000000-0000-7000-8000-000000000001',
        paid: '00000000-0000-7000-8000-000000000002',
        cancelled: '00000000-0000-7000-8000-000000000003',
      };
      try {
        await database.orm.migrator.up({ to: BEFORE_FULFILMENT });
        for (const [status, id] of Object.entries(orders))
          await database.session.run(
            `insert into "sales_order" ("id", "buyer", "status", "lines", "total_cents", "reservation_id", "reservation_expires_at", "created_at", "updated_at", "version")
             values (?, 'buyer-a', ?, ?, 10395, ?, ?, ?, ?, 3)`,
            [id, status, JSON.stringify(lines), randomUUID(), at(placedAt), at(placedAt), at(placedAt)],
          );
        expect(await database.migrate()).to.deep.equal([
          '20261129-order-fulfilment',
          '20261130-order-payments',
          '20261201-pending-orders-index',
        ]);

        const repository = new MikroOrmOrderRepository(database.session);
        const counts = async (id: string) =>
          (await repository.findById(id))!.lines.map((l) => [l.productId, l.shippedQuantity, l.returnedQuantity]);
        expect(await repository.findById(orders.completed)).to.include({ status: 'shipped', version: 4 });
        expect(await counts(orders.completed)).to.deep.equal([
          [9, 3, 0],
          [2, 1, 0],
          [5, 2, 0],
        ]);
        for (const status of ['paid', 'cancelled'] as const) {
          const order = await repository.findById(orders[status]);
          expect(order).to.include({ status, version: 4 }).and.not.to.have.property('paymentToRelease');
          expect(await counts(orders[status])).to.deep.equal([
            [9, 0, 0],
            [2, 0, 0],
            [5, 0, 0],
          ]);
        }
        expect((await repository.findById(orders.paid))!.lines.map((l) => l.allocations)).to.deep.equal([
          [{ locationId: 2, quantity: 3 }],
          [],
          [],
        ]);
        expect(await repository.countByStatus()).to.deep.equal({ shipped: 1, paid: 1, cancelled: 1 });

        // The new statuses and the flag are stored; the retired status is refused by the table itself.
        const paid = (await repository.findById(orders.paid))!;
        const cancelled = paid.cancel(new Date()).order;
        expect(await database.transaction((s) => new MikroOrmOrderRepository(s).save(cancelled, 4))).to.equal(true);
        expect(await repository.findById(orders.paid)).to.deep.equal(cancelled);
        await expect(
          database.session.run(`update "sales_order" set "status" = 'completed' where "id" = ?`, [orders.completed]),
        ).to.be.rejectedWith(/check/i);
      } finally {
        await database.close();
        await cleanUp();
      }
    });
  });
}

/** The last migration before payments: the orders it left have no payment, no refunds and owe the provider nothing. */
const BEFORE_PAYMENTS = '20261129-order-fulfilment';

for (const dialect of ['sqlite', 'postgresql'] as const) {
  describe(`sales migrations from before payments on ${dialect}`, () => {
    it('read every order as without a payment or refunds, and make the reserved ones due for their authorisation', async function () {
      const { url, cleanUp } = await scratchUrl(dialect, this, 'sales');
      const database = await openSalesDatabase(url, { createDatabase: true });
      const at = (iso: string) => (dialect === 'postgresql' ? iso : Date.parse(iso));
      const placedAt = '2026-11-29T10:00:00.000Z';
      const line = { productId: 1, name: 'Lamp', unitPriceCents: 1999, quantity: 1, allocations: [] };
      const orders = { reserved: '00000000-0000-7000-8000-000000000011', paid: '00000000-0000-7000-8000-000000000012' };
      try {
        await database.orm.migrator.up({ to: BEFORE_PAYMENTS });
        for (const [status, id] of Object.entries(orders))
          await database.session.run(
            `insert into "sales_order" ("id", "buyer", "status", "lines", "total_cents", "reservation_id", "created_at", "updated_at", "version")
             values (?, 'buyer-a', ?, ?, 1999, ?, ?, ?, 2)`,
            [id, status, JSON.stringify([line]), randomUUID(), at(placedAt), at(placedAt)],
          );
        expect(await database.migrate()).to.deep.equal(['20261130-order-payments', '20261201-pending-orders-index']);
        const repository = new MikroOrmOrderRepository(database.session);
        for (const id of Object.values(orders)) {
          const order = (await repository.findById(id))!;
          expect(order).not.to.have.property('payment');
          expect(order.refunds).to.deep.equal([]);
        }
        const now = new Date('2026-11-30T10:00:00Z');
        const claim = () =>
          database.transaction((s) => new MikroOrmOrderRepository(s).claimPaymentWork(now, 60_000, 10));
        expect(await claim(), 'the reserved order owes an authorisation; the paid one, nothing').to.deep.equal([
          orders.reserved,
        ]);
        expect((await repository.findById(orders.reserved))!.paymentWork()).to.deep.equal({ kind: 'authorise' });
        expect((await repository.findById(orders.paid))!.paymentWork()).to.equal(undefined);
      } finally {
        await database.close();
        await cleanUp();
      }
    });
  });
}
