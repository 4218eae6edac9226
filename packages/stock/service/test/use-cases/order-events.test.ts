import {
  aProduct,
  expectLedgersToSum,
  onOneStore,
  type OpenStockStore,
  type StockStoreUnderTest,
} from '@stock/domain/testing';
import { type EventData, type EventType, newEvent } from '@commerce/contracts';
import {
  CommitForOrder,
  CommitReservation,
  CreateProduct,
  ExpireReservations,
  GetReservation,
  type OrderEventSettings,
  ReleaseForOrder,
  ReleaseReservation,
  ReserveForOrder,
  ReserveStock,
} from '@stock/application';
import {
  ANONYMOUS_CALLER,
  DEFAULT_LOCATION_ID,
  type Product,
  ReservationNotFoundError,
  ReservationRequest,
} from '@stock/domain';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomUUID } from 'node:crypto';
import { STORES } from './stores';

chai.use(chaiAsPromised);
const { expect } = chai;

type Published = { type: EventType; data: Record<string, unknown> };

/**
 * What stock does with the events sales publishes, on a store, through the
 * use cases the consumer calls: each change and the event that answers it in
 * one unit of work with the message's inbox entry; redeliveries and
 * duplicates by order have no second effect; a cancel that overtakes its
 * order's placed event leaves a tombstone; a payment after the hold lapsed
 * fails to commit, saying so.
 */
function orderEventUseCases(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  let now = new Date('2026-11-23T10:00:00Z');
  const clock = () => now;
  const settings = (): OrderEventSettings => ({
    clock,
    newId: randomUUID,
    defaultTtlSeconds: 900,
    consumer: 'stock-service',
  });
  const useCases = () => ({
    placed: new ReserveForOrder(store.unitOfWork, settings()),
    cancelled: new ReleaseForOrder(store.unitOfWork, settings()),
    paid: new CommitForOrder(store.unitOfWork, settings()),
    expire: new ExpireReservations(store.unitOfWork, clock),
  });
  const product = async (quantityInStock: number) =>
    (await new CreateProduct(store.unitOfWork, clock).execute(aProduct({ quantityInStock }))).value;
  const reload = async (p: Pick<Product, 'id'>) => (await store.products.findById(p.id))!;
  const placed = (orderId: string, lines: { productId: number; quantity: number }[]) =>
    newEvent('sales.order.placed', { orderId, lines });
  const cancelled = (orderId: string) => newEvent('sales.order.cancelled', { orderId });
  const paid = (orderId: string) => newEvent('sales.order.paid', { orderId });

  /** The events written since the last call, oldest first (each call leases and marks them, as a relay would). */
  async function published(): Promise<Published[]> {
    const rows = await store.outbox.claim(10_000, 60_000, Date.now());
    await store.outbox.markPublished(
      rows.map((row) => row.id),
      Date.now(),
    );
    return rows.map((row) => {
      const { type, data } = JSON.parse(row.payload) as { type: EventType; data: Record<string, unknown> };
      return { type, data };
    });
  }

  const event = <T extends EventType>(type: T, data: EventData<T>): Published => ({
    type,
    data,
  });

  onOneStore(
    open,
    (opened) => (store = opened),
    () => (now = new Date('2026-11-23T10:00:00Z')),
  );

  it('holds a placed order under its id and confirms it, in one unit of work', async () => {
    const [a, b] = [await product(5), await product(2)];
    const orderId = randomUUID();
    expect(
      await useCases().placed.execute(
        placed(orderId, [
          { productId: a.id, quantity: 3 },
          { productId: b.id, quantity: 2 },
        ]),
      ),
    ).to.equal('held');
    const reservation = (await store.reservations.findForOrder(orderId))!;
    expect(reservation).to.include({ origin: 'order', status: 'held' });
    const confirmation = { orderId, reservationId: reservation.id, expiresAt: '2026-11-23T10:15:00.000Z' };
    // Version 2 names where each line is held; version 1 goes beside it for a sales instance that reads only it.
    expect(await published()).to.deep.equal([
      event('stock.reservation.confirmed.v2', {
        ...confirmation,
        lines: [
          { productId: a.id, quantity: 3, allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 3 }] },
          { productId: b.id, quantity: 2, allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 2 }] },
        ],
      }),
      event('stock.reservation.confirmed', confirmation),
    ]);
    expect(await reload(a)).to.include({ reservedQuantity: 3, availableQuantity: 2 });
    expect(await reload(b)).to.include({ reservedQuantity: 2, availableQuantity: 0 });
    await expectLedgersToSum(store, [a, b]);
  });

  it('has no second effect for a redelivered message, nor for a second placed event of the same order', async () => {
    const a = await product(5);
    const orderId = randomUUID();
    const message = placed(orderId, [{ productId: a.id, quantity: 2 }]);
    expect(await useCases().placed.execute(message)).to.equal('held');
    expect(await useCases().placed.execute(message)).to.equal('duplicate');
    expect(await useCases().placed.execute(placed(orderId, [{ productId: a.id, quantity: 2 }]))).to.equal('unchanged');
    expect((await reload(a)).reservedQuantity).to.equal(2);
    expect((await published()).map((e) => e.type)).to.deep.equal([
      'stock.reservation.confirmed.v2',
      'stock.reservation.confirmed',
    ]);
  });

  it('rejects an order stock cannot hold, naming the shortages, holds nothing, and stays rejected after a restock', async () => {
    const [a, b] = [await product(5), await product(1)];
    const orderId = randomUUID();
    expect(
      await useCases().placed.execute(
        placed(orderId, [
          { productId: a.id, quantity: 2 },
          { productId: b.id, quantity: 3 },
        ]),
      ),
    ).to.equal('rejected');
    expect(await published()).to.deep.equal([
      event('stock.reservation.rejected', {
        orderId,
        reason: 'insufficient-stock',
        shortages: [{ productId: b.id, requested: 3, available: 1 }],
      }),
    ]);
    expect((await reload(a)).reservedQuantity).to.equal(0);
    expect((await store.reservations.findForOrder(orderId))!).to.include({ status: 'rejected', origin: 'order' });
    await new CreateProduct(store.unitOfWork, clock).execute(aProduct({ quantityInStock: 1 }));
    expect(
      await useCases().placed.execute(
        placed(orderId, [
          { productId: a.id, quantity: 2 },
          { productId: b.id, quantity: 1 },
        ]),
      ),
    ).to.equal('unchanged');
    expect((await reload(a)).reservedQuantity, 'a repeat never holds for a rejected order').to.equal(0);
    expect(await published()).to.deep.equal([]);
    await expectLedgersToSum(store, [a, b]);
  });

  it('rejects an order naming a product that does not exist, with no shortages', async () => {
    const a = await product(5);
    const orderId = randomUUID();
    expect(
      await useCases().placed.execute(
        placed(orderId, [
          { productId: a.id, quantity: 1 },
          { productId: 2_147_483_000, quantity: 1 },
        ]),
      ),
    ).to.equal('rejected');
    expect(await published()).to.deep.equal([
      event('stock.reservation.rejected', { orderId, reason: 'unknown-products', shortages: [] }),
    ]);
    expect((await reload(a)).reservedQuantity).to.equal(0);
  });

  it('releases a cancelled order, once, and says so', async () => {
    const a = await product(5);
    const orderId = randomUUID();
    await useCases().placed.execute(placed(orderId, [{ productId: a.id, quantity: 4 }]));
    const reservationId = (await store.reservations.findForOrder(orderId))!.id;
    await published();
    const cancel = cancelled(orderId);
    expect(await useCases().cancelled.execute(cancel)).to.equal('released');
    expect(await useCases().cancelled.execute(cancel)).to.equal('duplicate');
    expect(await useCases().cancelled.execute(cancelled(orderId))).to.equal('unchanged');
    expect(await published()).to.deep.equal([event('stock.reservation.released', { orderId, reservationId })]);
    expect(await reload(a)).to.include({ quantityInStock: 5, reservedQuantity: 0 });
    await expectLedgersToSum(store, [a]);
  });

  it('leaves a tombstone for a cancel that overtook its placed event, so the late placed event is rejected, not held', async () => {
    const a = await product(5);
    const orderId = randomUUID();
    expect(await useCases().cancelled.execute(cancelled(orderId))).to.equal('tombstoned');
    expect(await published()).to.deep.equal([]);
    expect(await useCases().placed.execute(placed(orderId, [{ productId: a.id, quantity: 1 }]))).to.equal('rejected');
    expect(await published()).to.deep.equal([
      event('stock.reservation.rejected', { orderId, reason: 'order-cancelled', shortages: [] }),
    ]);
    expect((await reload(a)).reservedQuantity).to.equal(0);
    await expectLedgersToSum(store, [a]);
  });

  it('commits a paid order: its quantities move from held to committed, still on hand, once', async () => {
    const a = await product(5);
    const orderId = randomUUID();
    await useCases().placed.execute(placed(orderId, [{ productId: a.id, quantity: 3 }]));
    const reservationId = (await store.reservations.findForOrder(orderId))!.id;
    await published();
    const payment = paid(orderId);
    expect(await useCases().paid.execute(payment)).to.equal('committed');
    expect(await useCases().paid.execute(payment)).to.equal('duplicate');
    expect(await useCases().paid.execute(paid(orderId))).to.equal('unchanged');
    expect(await published()).to.deep.equal([event('stock.reservation.committed', { orderId, reservationId })]);
    expect(await reload(a)).to.include({
      quantityInStock: 5,
      reservedQuantity: 0,
      committedQuantity: 3,
      availableQuantity: 2,
    });
    const [, , commit] = await store.movements.list(a.id, { after: 0, limit: 10 });
    expect(commit).to.include({
      kind: 'committed',
      quantityDelta: 0,
      reservedDelta: -3,
      committedDelta: 3,
      reasonCode: 'committed',
      actor: 'sales',
    });
    await expectLedgersToSum(store, [a]);
  });

  it('never expires a paid order’s committed units', async () => {
    const a = await product(5);
    const orderId = randomUUID();
    await useCases().placed.execute(placed(orderId, [{ productId: a.id, quantity: 3 }]));
    await useCases().paid.execute(paid(orderId));
    now = new Date('2026-11-30T10:00:00Z');
    expect(await useCases().expire.execute()).to.deep.equal([]);
    expect((await store.reservations.findForOrder(orderId))!.status).to.equal('committed');
    expect(await reload(a)).to.include({ quantityInStock: 5, committedQuantity: 3 });
  });

  it('releases a cancelled paid order’s committed units when nothing shipped, publishing the release, once', async () => {
    const a = await product(5);
    const b = await product(4);
    const orderId = randomUUID();
    await useCases().placed.execute(
      placed(orderId, [
        { productId: a.id, quantity: 3 },
        { productId: b.id, quantity: 4 },
      ]),
    );
    const reservationId = (await store.reservations.findForOrder(orderId))!.id;
    await useCases().paid.execute(paid(orderId));
    await published();
    const cancel = cancelled(orderId);
    expect(await useCases().cancelled.execute(cancel)).to.equal('released');
    expect(await useCases().cancelled.execute(cancel)).to.equal('duplicate');
    expect(await useCases().cancelled.execute(cancelled(orderId))).to.equal('unchanged');
    expect(await published()).to.deep.equal([event('stock.reservation.released', { orderId, reservationId })]);
    expect((await store.reservations.findById(reservationId))!.status).to.equal('released');
    for (const [each, stock] of [
      [a, 5],
      [b, 4],
    ] as const)
      expect(await reload(each)).to.include({
        quantityInStock: stock,
        reservedQuantity: 0,
        committedQuantity: 0,
        availableQuantity: stock,
      });
    const released = (await store.movements.list(a.id, { after: 0, limit: 10 })).at(-1);
    expect(released).to.include({ kind: 'released', committedDelta: -3, quantityDelta: 0, actor: 'sales' });
    await expectLedgersToSum(store, [a, b]);
  });

  it('releases only the committed units no shipment took when a cancel races a shipment', async () => {
    const a = await product(5);
    const orderId = randomUUID();
    await useCases().placed.execute(placed(orderId, [{ productId: a.id, quantity: 3 }]));
    await useCases().paid.execute(paid(orderId));
    // The shipment took 2 of the 3 committed units (what the fulfilment's store would answer, and its ship did).
    const shipped = [{ productId: a.id, locationId: DEFAULT_LOCATION_ID, quantity: 2 }];
    await store.unitOfWork.run(async (tx) => {
      const stock = (await tx.stock.lock(a.id))!;
      const change = stock.ship(DEFAULT_LOCATION_ID, 2, { lowStockHysteresis: 1 });
      if ('status' in change) throw new Error(change.status);
      await tx.stock.save(change, { at: now, actor: 'clerk' });
    });
    const release = new ReleaseForOrder(store.unitOfWork, {
      ...settings(),
      shippedOf: async (_tx, order) => (order === orderId ? shipped : []),
    });
    expect(await release.execute(cancelled(orderId))).to.equal('released');
    expect(await reload(a)).to.include({ quantityInStock: 3, committedQuantity: 0, availableQuantity: 3 });
    expect((await store.movements.list(a.id, { after: 0, limit: 10 })).at(-1)).to.include({
      kind: 'released',
      committedDelta: -1,
    });
    await expectLedgersToSum(store, [a]);
  });

  it('publishes the expiry of an order’s hold, and fails to commit a payment that came after it', async () => {
    const a = await product(5);
    const orderId = randomUUID();
    await useCases().placed.execute(placed(orderId, [{ productId: a.id, quantity: 3 }]));
    const reservationId = (await store.reservations.findForOrder(orderId))!.id;
    const apiHold = (
      await new ReserveStock(store.unitOfWork, { clock, newId: randomUUID, defaultTtlSeconds: 900 }).execute(
        'shop-a',
        ReservationRequest.create({ reference: 'api-hold', lines: [{ productId: a.id, quantity: 1 }] }),
      )
    ).value;
    await published();
    now = new Date('2026-11-23T10:16:00Z');
    expect((await useCases().expire.execute()).map((r) => r.id).sort()).to.deep.equal(
      [reservationId, apiHold.reservation.id].sort(),
    );
    expect(await published(), 'only the order’s hold is published').to.deep.equal([
      event('stock.reservation.expired', { orderId, reservationId }),
    ]);
    expect(await useCases().paid.execute(paid(orderId))).to.equal('commit-failed');
    expect(await published()).to.deep.equal([
      event('stock.reservation.commit_failed', {
        orderId,
        reason: 'the reservation is expired: its stock is no longer held',
      }),
    ]);
    expect(await reload(a)).to.include({ quantityInStock: 5, reservedQuantity: 0 });
    await expectLedgersToSum(store, [a]);
  });

  it('keeps an order’s hold out of every API caller’s reach: reading, committing and releasing it are ReservationNotFoundError, and nothing changes', async () => {
    const a = await product(5);
    const orderId = randomUUID();
    await useCases().placed.execute(placed(orderId, [{ productId: a.id, quantity: 1 }]));
    const reservationId = (await store.reservations.findForOrder(orderId))!.id;
    await published();
    for (const caller of ['shop-a', ANONYMOUS_CALLER]) {
      await expect(new GetReservation(store.reservations).execute(reservationId, caller)).to.be.rejectedWith(
        ReservationNotFoundError,
      );
      await expect(new ReleaseReservation(store.unitOfWork, clock).execute(reservationId, caller)).to.be.rejectedWith(
        ReservationNotFoundError,
      );
      await expect(new CommitReservation(store.unitOfWork, clock).execute(reservationId, caller)).to.be.rejectedWith(
        ReservationNotFoundError,
      );
    }
    expect((await store.reservations.findById(reservationId))!.status).to.equal('held');
    expect(await reload(a)).to.include({ quantityInStock: 5, reservedQuantity: 1 });
    expect(await published()).to.deep.equal([]);
    const movements = await store.movements.list(a.id, { after: 0, limit: 10 });
    expect(
      movements.find((m) => m.kind === 'reserved'),
      'the order flow acts for sales, no caller',
    ).to.include({ reservationId, actor: 'sales' });
  });

  it('keeps a caller’s hold whose reference is an order id apart from that order’s: the order is held on its own, and its cancel releases only its own hold', async () => {
    const a = await product(5);
    const orderId = randomUUID();
    const apiHold = (
      await new ReserveStock(store.unitOfWork, { clock, newId: randomUUID, defaultTtlSeconds: 900 }).execute(
        'shop-a',
        ReservationRequest.create({ reference: orderId, lines: [{ productId: a.id, quantity: 1 }] }),
      )
    ).value.reservation;
    expect(await useCases().placed.execute(placed(orderId, [{ productId: a.id, quantity: 2 }]))).to.equal('held');
    const orderHold = (await store.reservations.findForOrder(orderId))!;
    expect(orderHold.id).not.to.equal(apiHold.id);
    expect(await useCases().cancelled.execute(cancelled(orderId))).to.equal('released');
    expect((await store.reservations.findById(apiHold.id))!.status, 'the caller’s hold is not the order’s').to.equal(
      'held',
    );
    expect(await reload(a)).to.include({ reservedQuantity: 1 });
    expect((await published()).filter((e) => e.type !== 'stock.reservation.confirmed.v2')).to.deep.equal([
      event('stock.reservation.confirmed', {
        orderId,
        reservationId: orderHold.id,
        expiresAt: '2026-11-23T10:15:00.000Z',
      }),
      event('stock.reservation.released', { orderId, reservationId: orderHold.id }),
    ]);
    await expectLedgersToSum(store, [a]);
  });

  it('holds exactly the stock when 200 orders of one unit race for 50, confirming 50 and rejecting 150', async () => {
    const a = await product(50);
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, () =>
        useCases().placed.execute(placed(randomUUID(), [{ productId: a.id, quantity: 1 }])),
      ),
    );
    expect(outcomes.filter((o) => o === 'held')).to.have.length(50);
    expect(outcomes.filter((o) => o === 'rejected')).to.have.length(150);
    const events = await published();
    expect(events.filter((e) => e.type === 'stock.reservation.confirmed')).to.have.length(50);
    expect(events.filter((e) => e.type === 'stock.reservation.rejected')).to.have.length(150);
    expect(await reload(a)).to.include({ reservedQuantity: 50, availableQuantity: 0 });
    await expectLedgersToSum(store, [a]);
  });
}

for (const { name, open } of STORES) describe(`Order events ${name}`, () => orderEventUseCases(open));
