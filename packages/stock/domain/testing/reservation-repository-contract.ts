import { randomUUID } from 'node:crypto';
import { DEFAULT_LOCATION_ID, type LineHold, type Reservation, type ReservationLine } from '../src';
import { expect } from 'chai';
import { aStoredLocation, aStoredProduct, inTransaction } from './stock-fixtures';
import { onOneStore, type OpenStockStore, type StockStoreUnderTest } from './stock-store';

const CREATED = new Date('2030-01-02T03:04:05.678Z');
const EXPIRES = new Date('2030-01-02T03:19:05.678Z');
const LATER = new Date('2030-01-02T03:30:00.000Z');

/**
 * What every ReservationRepository adapter promises: one hold per reference,
 * and where each line's units are held (allocations by location) or wait
 * (backordered, oldest first), as every read of the reservation answers them.
 */
export function reservationRepositoryContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  let productId: number;
  let otherProductId: number;
  let second: number;

  const aReservation = (lines: readonly ReservationLine[], overrides: Partial<Reservation> = {}): Reservation => ({
    id: randomUUID(),
    reference: `order ${randomUUID()}`,
    origin: 'api',
    owner: 'shop-a',
    status: 'held',
    lines,
    expiresAt: EXPIRES,
    createdAt: CREATED,
    updatedAt: CREATED,
    ...overrides,
  });
  /** A held reservation of `quantity` of the product, with `hold` recorded for its line. */
  const aHold = async (quantity: number, hold: LineHold, overrides: Partial<Reservation> = {}) => {
    const reservation = aReservation([{ productId, quantity }], overrides);
    await inTransaction(store, async (tx) => {
      expect(await tx.reservations.claim(reservation)).to.equal('claimed');
      await tx.reservations.recordHold(reservation.id, productId, hold);
    });
    return reservation;
  };
  const backorders = () => store.reservations.backorders(productId);

  onOneStore(
    open,
    (opened) => (store = opened),
    async () => {
      productId = (await aStoredProduct(store)).id;
      otherProductId = (await aStoredProduct(store)).id;
      second = (await aStoredLocation(store)).id;
    },
  );

  it('claims a reference once per owner, and once among the orders', async () => {
    const first = aReservation([{ productId, quantity: 1 }], { reference: 'R-1' });
    const claim = (reservation: Reservation) => inTransaction(store, (tx) => tx.reservations.claim(reservation));
    expect(await claim(first)).to.equal('claimed');
    expect(await claim(aReservation([{ productId, quantity: 2 }], { reference: 'R-1' }))).to.equal('taken');
    expect(await claim(aReservation([{ productId, quantity: 2 }], { reference: 'R-1', owner: 'shop-b' }))).to.equal(
      'claimed',
    );
    const order = aReservation([{ productId, quantity: 1 }], { reference: 'R-1', origin: 'order', owner: undefined });
    const { owner: _owner, ...orderWithoutOwner } = order;
    expect(await claim(orderWithoutOwner)).to.equal('claimed');
    expect(await claim({ ...orderWithoutOwner, id: randomUUID() })).to.equal('taken');
    expect((await store.reservations.findByReference('shop-a', 'R-1'))?.id).to.equal(first.id);
    expect((await store.reservations.findForOrder('R-1'))?.id).to.equal(order.id);
  });

  it('records where a line is held and answers it, allocations in location id order', async () => {
    const hold: LineHold = {
      allocations: [
        { locationId: second, quantity: 2 },
        { locationId: DEFAULT_LOCATION_ID, quantity: 3 },
      ],
      backordered: 4,
    };
    const { id } = await aHold(9, hold);
    const expected: LineHold = { allocations: [...hold.allocations].reverse(), backordered: 4 };
    expect(await store.reservations.holdOf(id, productId)).to.deep.equal(expected);
    expect(await inTransaction(store, (tx) => tx.reservations.holdOf(id, productId))).to.deep.equal(expected);
  });

  it('answers every read with held lines: their allocations and backordered units, and the location a line named', async () => {
    const reservation = aReservation(
      [
        { productId, quantity: 5 },
        { productId: otherProductId, quantity: 2, locationId: second },
      ],
      { reference: 'R-read' },
    );
    await inTransaction(store, async (tx) => {
      await tx.reservations.claim(reservation);
      await tx.reservations.recordHold(reservation.id, productId, {
        allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 4 }],
        backordered: 1,
      });
      await tx.reservations.recordHold(reservation.id, otherProductId, {
        allocations: [{ locationId: second, quantity: 2 }],
        backordered: 0,
      });
    });
    const lines = [
      {
        productId,
        quantity: 5,
        allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 4 }],
        backorderedQuantity: 1,
      },
      {
        productId: otherProductId,
        quantity: 2,
        locationId: second,
        allocations: [{ locationId: second, quantity: 2 }],
        backorderedQuantity: 0,
      },
    ];
    const held = { ...reservation, lines };
    expect(await store.reservations.findById(reservation.id)).to.deep.equal(held);
    expect(await store.reservations.findByReference('shop-a', 'R-read')).to.deep.equal(held);
    expect(await inTransaction(store, (tx) => tx.reservations.claimExpired(LATER, 10))).to.deep.equal([held]);
    const released = await inTransaction(store, (tx) => tx.reservations.transition(reservation.id, 'released', LATER));
    expect(released).to.deep.equal({ ...held, status: 'released', updatedAt: LATER });
    const order = aReservation([{ productId, quantity: 1 }], { origin: 'order', owner: undefined });
    const { owner: _owner, ...orderHold } = order;
    await inTransaction(store, async (tx) => {
      await tx.reservations.claim(orderHold);
      await tx.reservations.recordHold(order.id, productId, {
        allocations: [{ locationId: second, quantity: 1 }],
        backordered: 0,
      });
    });
    expect((await store.reservations.findForOrder(order.reference))?.lines).to.deep.equal([
      { productId, quantity: 1, allocations: [{ locationId: second, quantity: 1 }], backorderedQuantity: 0 },
    ]);
  });

  it('moves a held reservation on once, and claims only held ones whose time is up', async () => {
    const due = await aHold(1, { allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 1 }], backordered: 0 });
    const later = await aHold(
      1,
      { allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 1 }], backordered: 0 },
      { expiresAt: new Date(LATER.getTime() + 1) },
    );
    const committed = await aHold(1, { allocations: [{ locationId: second, quantity: 1 }], backordered: 0 });
    expect(await inTransaction(store, (tx) => tx.reservations.transition(committed.id, 'committed', LATER))).to.include(
      { status: 'committed' },
    );
    expect(await inTransaction(store, (tx) => tx.reservations.transition(committed.id, 'released', LATER))).to.equal(
      undefined,
    );
    const claimed = await inTransaction(store, (tx) => tx.reservations.claimExpired(LATER, 10));
    expect(claimed.map((r) => r.id)).to.deep.equal([due.id]);
    expect((await store.reservations.findById(later.id))?.status).to.equal('held');
  });

  it('answers a product’s backorders oldest first across reservations, of held reservations only', async () => {
    const none = { allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 1 }], backordered: 0 };
    await aHold(1, none);
    const first = await aHold(3, { allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 1 }], backordered: 2 });
    const ended = await aHold(1, { allocations: [], backordered: 1 });
    const second_ = await aHold(4, { allocations: [], backordered: 4 });
    const elsewhere = aReservation([{ productId: otherProductId, quantity: 5 }]);
    await inTransaction(store, async (tx) => {
      await tx.reservations.claim(elsewhere);
      await tx.reservations.recordHold(elsewhere.id, otherProductId, { allocations: [], backordered: 5 });
    });
    await inTransaction(store, (tx) => tx.reservations.transition(ended.id, 'released', LATER));
    expect(await backorders()).to.deep.equal([
      { reservationId: first.id, quantity: 2 },
      { reservationId: second_.id, quantity: 4 },
    ]);
    expect(await inTransaction(store, (tx) => tx.reservations.backorders(otherProductId))).to.deep.equal([
      { reservationId: elsewhere.id, quantity: 5 },
    ]);
  });

  it('records fills: backordered units become allocations at the fill’s location, the oldest keeping its turn', async () => {
    const first = await aHold(5, { allocations: [{ locationId: second, quantity: 1 }], backordered: 4 });
    const next = await aHold(2, { allocations: [], backordered: 2 });
    await inTransaction(store, async (tx) => {
      await tx.reservations.recordFill(productId, { reservationId: first.id, locationId: second, quantity: 1 });
      await tx.reservations.recordFill(productId, {
        reservationId: first.id,
        locationId: DEFAULT_LOCATION_ID,
        quantity: 1,
      });
    });
    expect(await store.reservations.holdOf(first.id, productId)).to.deep.equal({
      allocations: [
        { locationId: DEFAULT_LOCATION_ID, quantity: 1 },
        { locationId: second, quantity: 2 },
      ],
      backordered: 2,
    });
    expect(await backorders()).to.deep.equal([
      { reservationId: first.id, quantity: 2 },
      { reservationId: next.id, quantity: 2 },
    ]);
    await inTransaction(store, (tx) =>
      tx.reservations.recordFill(productId, { reservationId: first.id, locationId: second, quantity: 2 }),
    );
    expect(await backorders(), 'a line filled in full waits no more').to.deep.equal([
      { reservationId: next.id, quantity: 2 },
    ]);
    expect((await store.reservations.findById(first.id))?.lines).to.deep.equal([
      {
        productId,
        quantity: 5,
        allocations: [
          { locationId: DEFAULT_LOCATION_ID, quantity: 1 },
          { locationId: second, quantity: 4 },
        ],
        backorderedQuantity: 0,
      },
    ]);
  });

  it('drops a line’s backorder, keeping its allocations', async () => {
    const dropped = await aHold(3, { allocations: [{ locationId: second, quantity: 1 }], backordered: 2 });
    const kept = await aHold(1, { allocations: [], backordered: 1 });
    await inTransaction(store, (tx) => tx.reservations.dropBackorder(dropped.id, productId));
    expect(await store.reservations.holdOf(dropped.id, productId)).to.deep.equal({
      allocations: [{ locationId: second, quantity: 1 }],
      backordered: 0,
    });
    expect(await backorders()).to.deep.equal([{ reservationId: kept.id, quantity: 1 }]);
  });
}
