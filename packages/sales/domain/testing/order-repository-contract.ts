import { Money } from '@commerce/shared-kernel';
import { timeOrderedId } from '@platform/kernel';
import { Order, type Viewer } from '../src';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { paidThroughProvider } from './payments';
import type { OpenSalesStore, SalesStoreUnderTest } from './sales-store';

chai.use(chaiAsPromised);
const { expect } = chai;

export function anOrder(buyer = 'buyer-a', at = new Date()): Order {
  return Order.place(
    timeOrderedId(at.getTime()),
    buyer,
    [
      { productId: 1, name: 'Lamp', unitPrice: Money.fromDecimalString('19.99'), quantity: 3 },
      { productId: 2, name: 'Chaise longue “été”', unitPrice: Money.fromDecimalString('1234567890.12'), quantity: 2 },
    ],
    at,
  );
}

/** What every OrderRepository promises. */
export function orderRepositoryContract(open: OpenSalesStore): void {
  let store: SalesStoreUnderTest;
  const write = <T>(call: (tx: Parameters<Parameters<SalesStoreUnderTest['unitOfWork']['run']>[0]>[0]) => Promise<T>) =>
    store.unitOfWork.run(call);

  before(async function () {
    store = await open(this);
  });
  beforeEach(async () => store.reset());
  after(async () => store?.close());

  it('stores an order and reads it back whole: lines, exact money, times', async () => {
    const order = anOrder();
    await write((tx) => tx.orders.add(order));
    const found = await store.orders.findById(order.id);
    expect(found).to.deep.equal(order);
    expect(found?.total.toString()).to.equal('2469135840.21');
  });

  it('moves an order on only from the version it was read at', async () => {
    const order = anOrder();
    await write((tx) => tx.orders.add(order));
    const reserved = order.reservationConfirmed(
      '3f1c2b7e-9a40-4d1e-8f7a-2c1d0b9e6a55',
      new Date('2026-11-23T10:15:00Z'),
      new Date(),
    ).order;
    expect(await write((tx) => tx.orders.save(reserved, 1))).to.equal(true);
    expect(await write((tx) => tx.orders.save(reserved.cancel(new Date()).order, 1))).to.equal(false);
    expect(await store.orders.findById(order.id)).to.deep.equal(reserved);
  });

  it('keeps where stock holds each line, from its confirmation on', async () => {
    const order = anOrder();
    await write((tx) => tx.orders.add(order));
    expect((await store.orders.findById(order.id))?.lines.map((line) => line.allocations)).to.deep.equal([[], []]);
    const held = [
      {
        productId: 1,
        allocations: [
          { locationId: 1, quantity: 1 },
          { locationId: 2147483647, quantity: 2 },
        ],
      },
      { productId: 2, allocations: [{ locationId: 3, quantity: 2 }] },
    ];
    const reserved = order.reservationConfirmed(
      '3f1c2b7e-9a40-4d1e-8f7a-2c1d0b9e6a55',
      new Date('2026-11-23T10:15:00Z'),
      new Date(),
      held,
    ).order;
    expect(await write((tx) => tx.orders.save(reserved, 1))).to.equal(true);
    const found = await store.orders.findById(order.id);
    expect(found).to.deep.equal(reserved);
    expect(found?.lines.map((line) => line.allocations)).to.deep.equal(held.map((line) => line.allocations));
  });

  it("keeps each line's shipped and returned units, the fulfilment statuses, and that a payment is owed back", async () => {
    const at = new Date();
    const paid = (order: Order) =>
      paidThroughProvider(order.reservationConfirmed('3f1c2b7e-9a40-4d1e-8f7a-2c1d0b9e6a55', at, at).order, at);
    const order = anOrder('a');
    const partly = paid(order).shipmentCreated([{ productId: 1, quantity: 3 }], at).order;
    const shipped = partly.shipmentCreated([{ productId: 2, quantity: 2 }], at).order;
    const returning = shipped.returnReceived([{ productId: 2, quantity: 1 }], at).order;
    await write((tx) => tx.orders.add(order));
    for (const [step, from] of [
      [partly, 1],
      [shipped, partly.version],
      [returning, shipped.version],
    ] as const) {
      expect(await write((tx) => tx.orders.save(step, from))).to.equal(true);
      expect(await store.orders.findById(order.id)).to.deep.equal(step);
    }
    expect([partly.status, shipped.status, returning.status]).to.deep.equal([
      'partially_shipped',
      'shipped',
      'shipped',
    ]);
    expect(returning.lines.map((l) => [l.shippedQuantity, l.returnedQuantity])).to.deep.equal([
      [3, 0],
      [2, 1],
    ]);
    expect(await store.orders.findById(order.id)).not.to.have.property('paymentToRelease');

    const other = anOrder('b');
    const cancelled = paid(other).cancel(at).order;
    await write((tx) => tx.orders.add(other));
    expect(await write((tx) => tx.orders.save(cancelled, 1))).to.equal(true);
    expect(await store.orders.findById(other.id))
      .to.deep.equal(cancelled)
      .and.to.include({ paymentToRelease: true });
  });

  it("lists a buyer's orders, oldest first, after a given one; an admin sees everyone's", async () => {
    const start = Date.now();
    const orders = [
      anOrder('a', new Date(start)),
      anOrder('b', new Date(start + 1)),
      anOrder('a', new Date(start + 2)),
      anOrder('a', new Date(start + 3)),
    ];
    for (const order of orders) await write((tx) => tx.orders.add(order));
    const a: Viewer = { kind: 'buyer', buyer: 'a' };
    expect((await store.orders.list(a, { limit: 10 })).map((o) => o.id)).to.deep.equal([
      orders[0]!.id,
      orders[2]!.id,
      orders[3]!.id,
    ]);
    expect((await store.orders.list(a, { after: orders[0]!.id, limit: 1 })).map((o) => o.id)).to.deep.equal([
      orders[2]!.id,
    ]);
    expect(await store.orders.list({ kind: 'buyer', buyer: 'nobody' }, { limit: 10 })).to.deep.equal([]);
    expect(await store.orders.list({ kind: 'admin' }, { limit: 10 })).to.have.length(4);
  });

  it('finds the orders still pending that were placed by a time, oldest first, at most as many as asked', async () => {
    const start = Date.now();
    const orders = [0, 1, 2, 3].map((ms) => anOrder('a', new Date(start + ms)));
    for (const order of orders) await write((tx) => tx.orders.add(order));
    await write((tx) => tx.orders.save(orders[1]!.reservationRejected([], 'insufficient-stock', new Date()).order, 1));
    const pendingBy = (ms: number, limit: number) => store.orders.findPendingPlacedBy(new Date(start + ms), limit);
    expect(await pendingBy(2, 10)).to.deep.equal([orders[0]!.id, orders[2]!.id]);
    expect(await pendingBy(3, 1)).to.deep.equal([orders[0]!.id]);
    expect(await pendingBy(-1, 10)).to.deep.equal([]);
  });

  it('counts orders by status, leaving out the statuses with none', async () => {
    expect(await store.orders.countByStatus()).to.deep.equal({});
    const [one, two, three] = [anOrder('a'), anOrder('b'), anOrder('a')];
    for (const order of [one, two, three]) await write((tx) => tx.orders.add(order));
    await write((tx) => tx.orders.save(one.cancel(new Date()).order, 1));
    expect(await store.orders.countByStatus()).to.deep.equal({ pending: 2, cancelled: 1 });
  });
}
