import { type EventEnvelope, newEvent, type ReturnReceived, type ShipmentCreated } from '@commerce/contracts';
import { Money } from '@commerce/shared-kernel';
import { IdempotencyKeyReusedError, timeOrderedId, UnavailableError } from '@platform/kernel';
import {
  CancelOrder,
  GetOrder,
  HandlePaymentEvent,
  HandleStockEvent,
  ListOrders,
  PerformPaymentWork,
  PlaceOrder,
  RejectUnansweredOrders,
  type StockEvent,
} from '@sales/application';
import {
  type Order,
  OrderNotFoundError,
  OrderRequest,
  OrderStateConflictError,
  type ProductCatalog,
  UnknownProductsError,
  type Viewer,
} from '@sales/domain';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomUUID } from 'node:crypto';
import {
  FakePaymentProvider,
  FixedCatalog,
  type OpenSalesStore,
  type SalesStoreUnderTest,
} from '@sales/domain/testing';
import { STORES } from './stores';

chai.use(chaiAsPromised);
const { expect } = chai;

const A: Viewer = { kind: 'buyer', buyer: 'buyer-a' };
const B: Viewer = { kind: 'buyer', buyer: 'buyer-b' };
const ADMIN: Viewer = { kind: 'admin' };
const RESERVATION = '3f1c2b7e-9a40-4d1e-8f7a-2c1d0b9e6a55';
/** Where stock holds the lines request() asks for: the lamps split across two locations. */
const HELD = [
  {
    productId: 1,
    quantity: 3,
    allocations: [
      { locationId: 1, quantity: 1 },
      { locationId: 2, quantity: 2 },
    ],
  },
  { productId: 2, quantity: 1, allocations: [{ locationId: 1, quantity: 1 }] },
];

/**
 * The sales use cases on a store: orders placed from the catalogue's quote,
 * each change with its event in the outbox, in one unit of work; buyers kept
 * apart; stock's events applied once per message and guarded by the order's state.
 */
function salesUseCases(open: OpenSalesStore): void {
  let store: SalesStoreUnderTest;
  let catalog: FixedCatalog;
  let now = new Date('2026-11-23T10:00:00Z');
  const clock = () => now;
  const useCases = (quotes: ProductCatalog = catalog) => ({
    place: new PlaceOrder(store.unitOfWork, quotes, { clock, newId: () => timeOrderedId(clock().getTime()) }),
    get: new GetOrder(store.orders),
    list: new ListOrders(store.orders),
    cancel: new CancelOrder(store.unitOfWork, clock),
    pay: { execute: payThroughProvider },
    handle: new HandleStockEvent(store.unitOfWork, { clock, consumer: 'sales-service' }),
  });
  /**
   * The buyer pays as with a provider: sales makes the authorisation the order owes (if it owes one), then the
   * provider says the order's total is held. The order as it is after.
   */
  const payThroughProvider = async (orderId: string): Promise<Order> => {
    await new PerformPaymentWork(store.unitOfWork, new FakePaymentProvider(), { clock, currency: 'EUR' }).execute(
      orderId,
    );
    const order = await useCases().get.execute(orderId, ADMIN);
    if (order.payment)
      await new HandlePaymentEvent(store.unitOfWork, { clock }).execute({
        kind: 'authorized',
        eventId: randomUUID(),
        occurredAt: now,
        intentId: order.payment.intentId,
        orderId,
        amount: order.total.cents,
        currency: 'EUR',
      });
    return useCases().get.execute(orderId, ADMIN);
  };
  const request = (
    lines = [
      { productId: 1, quantity: 2 },
      { productId: 2, quantity: 1 },
      { productId: 1, quantity: 1 },
    ],
  ) => OrderRequest.create({ lines });
  const placed = async (viewer: Viewer = A) =>
    (await useCases().place.execute(viewer.kind === 'buyer' ? viewer.buyer : 'admin', request())).value;
  /** The events written so far and not yet read: claimed, then marked published, as a relay would. */
  const events = async (): Promise<EventEnvelope[]> => {
    const claimed = await store.outbox.claim(1000, 60_000, Date.now());
    await store.outbox.markPublished(
      claimed.map((m) => m.id),
      Date.now(),
    );
    return claimed.map((m) => JSON.parse(m.payload) as EventEnvelope);
  };
  const stock = <E extends StockEvent>(type: E['type'], data: E['data']) =>
    newEvent(type, data as never, now) as StockEvent;
  /** Stock's word that it holds `orderId`'s lines (those of request()), until a fixed time, and where. */
  const confirmation = (orderId: string, reservationId = RESERVATION) =>
    stock('stock.reservation.confirmed.v2', {
      orderId,
      reservationId,
      expiresAt: '2026-11-23T10:15:00.000Z',
      lines: HELD,
    });
  /** The same word in the first version of the event, which says nothing of where: stock before its upgrade. */
  const firstConfirmation = (orderId: string) =>
    stock('stock.reservation.confirmed', {
      orderId,
      reservationId: RESERVATION,
      expiresAt: '2026-11-23T10:15:00.000Z',
    });
  /** Stock's word that units of `orderId` left its locations. */
  const shipment = (orderId: string, lines: ShipmentCreated['lines']) =>
    stock('stock.shipment.created', { shipmentId: randomUUID(), orderId, lines, carrier: null, trackingNumber: null });
  /** Stock's word that shipped units of `orderId` came back (or never will). */
  const returned = (orderId: string, lines: ReturnReceived['lines']) =>
    stock('stock.return.received', { returnId: randomUUID(), orderId, lines, reason: null });
  const allocationsOf = async (orderId: string) =>
    (await useCases().get.execute(orderId, A)).lines.map((line) => [line.productId, line.allocations]);

  before(async function () {
    store = await open(this);
  });
  beforeEach(async () => {
    now = new Date('2026-11-23T10:00:00Z');
    catalog = new FixedCatalog([
      { id: 1, name: 'Lamp', price: Money.fromDecimalString('19.99') },
      { id: 2, name: 'Chair', price: Money.fromDecimalString('0.10') },
    ]);
    await store.reset();
  });
  after(async () => store?.close());

  it('places an order pending, priced from one quote, and writes sales.order.placed with it', async () => {
    const { value: order } = await useCases().place.execute('buyer-a', request());
    expect(catalog.asked).to.deep.equal([[1, 2]]);
    expect(order).to.include({ status: 'pending', buyer: 'buyer-a', version: 1 });
    expect(
      order.lines.map((l) => [l.productId, l.name, l.unitPrice.toString(), l.quantity, l.lineTotal.toString()]),
    ).to.deep.equal([
      [1, 'Lamp', '19.99', 3, '59.97'],
      [2, 'Chair', '0.10', 1, '0.10'],
    ]);
    expect(order.total.toString()).to.equal('60.07');
    expect(await store.orders.findById(order.id)).to.deep.equal(order);
    expect((await events()).map((e) => [e.type, e.data])).to.deep.equal([
      [
        'sales.order.placed',
        {
          orderId: order.id,
          lines: [
            { productId: 1, quantity: 3 },
            { productId: 2, quantity: 1 },
          ],
        },
      ],
    ]);
  });

  it('refuses unknown products, naming them, and records nothing', async () => {
    await expect(
      useCases().place.execute(
        'buyer-a',
        request([
          { productId: 1, quantity: 1 },
          { productId: 77, quantity: 1 },
          { productId: 78, quantity: 1 },
        ]),
      ),
    )
      .to.be.rejectedWith(UnknownProductsError)
      .and.eventually.deep.include({ productIds: [77, 78] });
    expect(await store.orders.list({ kind: 'admin' }, { limit: 10 })).to.deep.equal([]);
    expect(await events()).to.deep.equal([]);
  });

  it('records nothing when stock does not answer', async () => {
    const down: ProductCatalog = {
      quote: async () => Promise.reject(new UnavailableError('STOCK_UNAVAILABLE', 'Stock does not answer.')),
    };
    await expect(useCases(down).place.execute('buyer-a', request())).to.be.rejectedWith(UnavailableError);
    expect(await store.orders.list({ kind: 'admin' }, { limit: 10 })).to.deep.equal([]);
    expect(await events()).to.deep.equal([]);
  });

  it('places once per idempotency key: one order, one event', async () => {
    const idempotency = { scope: 'place-order', key: randomUUID(), fingerprint: 'f' };
    const first = await useCases().place.execute('buyer-a', request(), { idempotency });
    const repeat = await useCases().place.execute('buyer-a', request(), { idempotency });
    expect(repeat).to.deep.equal({ value: first.value, replayed: true });
    expect(await events()).to.have.length(1);
    await expect(
      useCases().place.execute('buyer-a', request(), { idempotency: { ...idempotency, fingerprint: 'other' } }),
    ).to.be.rejectedWith(IdempotencyKeyReusedError);
  });

  it('answers a repeat recorded under its idempotency key without asking stock, so it gets its order while stock is down', async () => {
    const idempotency = { scope: 'place-order', key: randomUUID(), fingerprint: 'f' };
    const first = await useCases().place.execute('buyer-a', request(), { idempotency });
    const down: ProductCatalog = {
      quote: async () => Promise.reject(new UnavailableError('STOCK_UNAVAILABLE', 'Stock does not answer.')),
    };
    expect(await useCases(down).place.execute('buyer-a', request(), { idempotency })).to.deep.equal({
      value: first.value,
      replayed: true,
    });
    await expect(
      useCases(down).place.execute('buyer-a', request(), { idempotency: { ...idempotency, fingerprint: 'other' } }),
    ).to.be.rejectedWith(IdempotencyKeyReusedError);
    await expect(
      useCases(down).place.execute('buyer-a', request(), { idempotency: { ...idempotency, key: randomUUID() } }),
      'a new key still needs stock',
    ).to.be.rejectedWith(UnavailableError);
    expect(catalog.asked, 'stock was asked once, for the first').to.have.length(1);
  });

  it("keeps buyers apart: another buyer's order is not found, to read or cancel; an admin reaches it", async () => {
    const order = await placed(A);
    for (const attempt of [() => useCases().get.execute(order.id, B), () => useCases().cancel.execute(order.id, B)]) {
      await expect(attempt()).to.be.rejectedWith(OrderNotFoundError);
    }
    expect((await useCases().get.execute(order.id, { kind: 'admin' })).id).to.equal(order.id);
    expect((await useCases().list.execute(B, { limit: 10 })).items).to.deep.equal([]);
    expect((await useCases().list.execute(A, { limit: 10 })).items.map((o) => o.id)).to.deep.equal([order.id]);
  });

  it("takes the payment provider's authorisation for any buyer's order, by its id; an id no order has is not found", async () => {
    const [a, b] = [await placed(A), await placed(B)];
    for (const order of [a, b]) await useCases().handle.execute(confirmation(order.id, randomUUID()));
    expect(await useCases().pay.execute(a.id)).to.include({ status: 'paid', buyer: 'buyer-a' });
    expect(await useCases().pay.execute(b.id)).to.include({ status: 'paid', buyer: 'buyer-b' });
    await expect(useCases().pay.execute(timeOrderedId(now.getTime()))).to.be.rejectedWith(OrderNotFoundError);
  });

  it('goes pending → reserved → paid on stock’s answers and its payment, each change with its event, and stays paid when stock commits', async () => {
    const order = await placed();
    await events();
    expect(await useCases().handle.execute(confirmation(order.id))).to.equal('applied');
    expect(await useCases().get.execute(order.id, A)).to.include({ status: 'reserved', reservationId: RESERVATION });
    now = new Date('2026-11-23T10:01:00Z');
    expect(await useCases().pay.execute(order.id)).to.include({ status: 'paid' });
    expect(await useCases().pay.execute(order.id)).to.include({ status: 'paid' });
    expect((await events()).map((e) => [e.type, e.data])).to.deep.equal([['sales.order.paid', { orderId: order.id }]]);
    expect(
      await useCases().handle.execute(
        stock('stock.reservation.committed', { orderId: order.id, reservationId: RESERVATION }),
      ),
    ).to.equal('unchanged');
    expect(await useCases().get.execute(order.id, A)).to.include({ status: 'paid', version: 4 });
  });

  it('goes paid → partially_shipped → shipped → returned on stock’s shipments and returns, counting each line, once per message', async () => {
    const order = await placed();
    await useCases().handle.execute(confirmation(order.id));
    await useCases().pay.execute(order.id);
    await events();
    const counts = async () =>
      (await useCases().get.execute(order.id, A)).lines.map((l) => [
        l.productId,
        l.shippedQuantity,
        l.returnedQuantity,
      ]);
    const first = shipment(order.id, [
      { productId: 1, locationId: 1, quantity: 1 },
      { productId: 1, locationId: 2, quantity: 1 },
    ]);
    expect(await useCases().handle.execute(first)).to.equal('applied');
    expect(await useCases().handle.execute(first)).to.equal('duplicate');
    expect(await useCases().get.execute(order.id, A)).to.include({ status: 'partially_shipped' });
    expect(await counts()).to.deep.equal([
      [1, 2, 0],
      [2, 0, 0],
    ]);
    await useCases().handle.execute(
      shipment(order.id, [
        { productId: 2, locationId: 1, quantity: 1 },
        { productId: 1, locationId: 2, quantity: 1 },
      ]),
    );
    expect(await useCases().get.execute(order.id, A)).to.include({ status: 'shipped' });
    const goods = returned(order.id, [
      { productId: 1, locationId: 1, quantity: 1, disposition: 'restock' },
      { productId: 1, locationId: 2, quantity: 1, disposition: 'quality-control' },
      { productId: 2, locationId: 1, quantity: 1, disposition: 'damaged' },
    ]);
    expect(await useCases().handle.execute(goods)).to.equal('applied');
    expect(await useCases().handle.execute(goods)).to.equal('duplicate');
    expect(await useCases().get.execute(order.id, A)).to.include({ status: 'shipped' });
    expect(
      await useCases().handle.execute(
        returned(order.id, [{ productId: 1, locationId: 2, quantity: 1, disposition: 'missing' }]),
      ),
    ).to.equal('applied');
    expect(await useCases().get.execute(order.id, A)).to.include({ status: 'returned', version: 8 });
    expect(await counts()).to.deep.equal([
      [1, 3, 3],
      [2, 1, 1],
    ]);
    expect(await events(), 'sales tells stock nothing of what stock did').to.deep.equal([]);
  });

  it('cancels a pending, a reserved or a paid order with sales.order.cancelled, the paid one owing its payment back, and refuses one that shipped', async () => {
    const pending = await placed();
    const reserved = await placed();
    const paid = await placed();
    for (const order of [reserved, paid]) await useCases().handle.execute(confirmation(order.id));
    await useCases().pay.execute(paid.id);
    await events();
    for (const order of [pending, reserved, paid])
      expect(await useCases().cancel.execute(order.id, A)).to.include({ status: 'cancelled' });
    expect(await useCases().cancel.execute(pending.id, A)).to.include({ status: 'cancelled' });
    expect((await events()).map((e) => [e.type, e.data])).to.deep.equal([
      ['sales.order.cancelled', { orderId: pending.id }],
      ['sales.order.cancelled', { orderId: reserved.id }],
      ['sales.order.cancelled', { orderId: paid.id }],
    ]);
    expect(await useCases().get.execute(paid.id, A)).to.include({ paymentToRelease: true });
    expect(await useCases().get.execute(reserved.id, A)).not.to.have.property('paymentToRelease');
    expect(await useCases().pay.execute(pending.id), 'a cancelled order owes no authorisation').to.include({
      status: 'cancelled',
    });

    const shipping = await placed();
    await useCases().handle.execute(confirmation(shipping.id));
    await useCases().pay.execute(shipping.id);
    await useCases().handle.execute(shipment(shipping.id, [{ productId: 2, locationId: 1, quantity: 1 }]));
    await events();
    await expect(useCases().cancel.execute(shipping.id, A))
      .to.be.rejectedWith(OrderStateConflictError)
      .and.eventually.include({ status: 'partially_shipped' });
    expect(await events(), 'a refused cancel tells stock nothing').to.deep.equal([]);
  });

  it('counts a shipment that raced the cancel of a paid order, and keeps it cancelled', async () => {
    const order = await placed();
    await useCases().handle.execute(confirmation(order.id));
    await useCases().pay.execute(order.id);
    await useCases().cancel.execute(order.id, A);
    expect(
      await useCases().handle.execute(shipment(order.id, [{ productId: 1, locationId: 2, quantity: 2 }])),
    ).to.equal('applied');
    const after = await useCases().get.execute(order.id, A);
    expect(after).to.include({ status: 'cancelled', paymentToRelease: true });
    expect(after.lines.map((line) => line.shippedQuantity)).to.deep.equal([2, 0]);
  });

  it('applies a message once however often it is delivered, and a second event about the same order meets its guards', async () => {
    const order = await placed();
    const confirmed = confirmation(order.id);
    expect(await useCases().handle.execute(confirmed)).to.equal('applied');
    expect(await useCases().handle.execute(confirmed)).to.equal('duplicate');
    expect(await useCases().handle.execute({ ...confirmed, id: randomUUID() })).to.equal('unchanged');
    expect((await useCases().get.execute(order.id, A)).version).to.equal(2);
  });

  it('ends where in-order delivery would when events come late: a confirmation after a cancel, an expiry after payment', async () => {
    const cancelled = await placed();
    await useCases().cancel.execute(cancelled.id, A);
    expect(await useCases().handle.execute(confirmation(cancelled.id))).to.equal('unchanged');
    expect((await useCases().get.execute(cancelled.id, A)).status).to.equal('cancelled');

    const paid = await placed();
    await useCases().handle.execute(confirmation(paid.id));
    await useCases().pay.execute(paid.id);
    expect(
      await useCases().handle.execute(
        stock('stock.reservation.expired', { orderId: paid.id, reservationId: RESERVATION }),
      ),
    ).to.equal('unchanged');
    expect(
      await useCases().handle.execute(
        stock('stock.reservation.commit_failed', { orderId: paid.id, reason: 'the hold had expired' }),
      ),
    ).to.equal('applied');
    expect(await useCases().get.execute(paid.id, A)).to.include({
      status: 'unfulfilled',
      failureReason: 'the hold had expired',
    });
  });

  it('follows stock when the hold is released or committed outside the order flow: released → cancelled and unpayable, committed → still waiting for its payment; no event of its own', async () => {
    const confirm = (orderId: string) => useCases().handle.execute(confirmation(orderId));
    const released = await placed();
    const committed = await placed();
    await confirm(released.id);
    await confirm(committed.id);
    await events();
    expect(
      await useCases().handle.execute(
        stock('stock.reservation.released', { orderId: released.id, reservationId: RESERVATION }),
      ),
    ).to.equal('applied');
    expect(await useCases().get.execute(released.id, A)).to.include({
      status: 'cancelled',
      failureReason: 'reservation-released',
    });
    expect(await useCases().pay.execute(released.id)).to.include({ status: 'cancelled' });
    expect(await useCases().cancel.execute(released.id, A)).to.include({ status: 'cancelled' });

    expect(
      await useCases().handle.execute(
        stock('stock.reservation.committed', { orderId: committed.id, reservationId: RESERVATION }),
      ),
    ).to.equal('unchanged');
    expect((await useCases().get.execute(committed.id, A)).status).to.equal('reserved');
    expect(await events(), 'stock already settled the holds: nothing to tell it').to.deep.equal([]);
    expect(await useCases().pay.execute(committed.id)).to.include({ status: 'paid' });

    // The answer to a buyer's own cancel finds the order cancelled, without a reason.
    const cancelled = await placed();
    await confirm(cancelled.id);
    await useCases().cancel.execute(cancelled.id, A);
    expect(
      await useCases().handle.execute(
        stock('stock.reservation.released', { orderId: cancelled.id, reservationId: RESERVATION }),
      ),
    ).to.equal('unchanged');
    expect((await useCases().get.execute(cancelled.id, A)).failureReason).to.equal(undefined);
  });

  it('ends expired when the expiry overtakes the confirmation (the relay let it pass), and neither a late confirmation nor a duplicate moves it', async () => {
    const order = await placed();
    const expired = stock('stock.reservation.expired', { orderId: order.id, reservationId: RESERVATION });
    const confirmed = confirmation(order.id);
    expect(await useCases().handle.execute(expired)).to.equal('applied');
    expect(await useCases().handle.execute(confirmed)).to.equal('unchanged');
    expect(await useCases().handle.execute(expired)).to.equal('duplicate');
    expect(await useCases().handle.execute({ ...confirmed, id: randomUUID() })).to.equal('unchanged');
    expect(await useCases().get.execute(order.id, A)).to.include({
      status: 'expired',
      reservationId: RESERVATION,
      version: 2,
    });
    expect(await useCases().pay.execute(order.id)).to.include({ status: 'expired' });
  });

  it('rejects an order stock never answered once its answer is overdue, tells stock it is cancelled, and a late answer changes nothing', async () => {
    const rejectUnanswered = new RejectUnansweredOrders(store.unitOfWork, { clock, answerTimeoutMs: 60_000 });
    const unanswered = await placed();
    const answered = await placed();
    await useCases().handle.execute(confirmation(answered.id));
    now = new Date(now.getTime() + 30_000);
    const recent = await placed();
    await events();
    expect(await rejectUnanswered.execute(), 'nothing is overdue yet').to.equal(0);
    now = new Date(now.getTime() + 30_000);
    expect(await rejectUnanswered.execute()).to.equal(1);
    expect(await useCases().get.execute(unanswered.id, A)).to.deep.include({
      status: 'rejected',
      failureReason: 'stock-unanswered',
      shortages: [],
    });
    expect((await useCases().get.execute(answered.id, A)).status).to.equal('reserved');
    expect((await useCases().get.execute(recent.id, A)).status).to.equal('pending');
    expect((await events()).map((e) => [e.type, (e.data as { orderId: string }).orderId])).to.deep.equal([
      ['sales.order.cancelled', unanswered.id],
    ]);
    expect(await rejectUnanswered.execute(), 'a second sweep finds it decided').to.equal(0);
    await useCases().handle.execute(confirmation(unanswered.id));
    expect((await useCases().get.execute(unanswered.id, A)).status).to.equal('rejected');
    expect(await events()).to.deep.equal([]);
  });

  it('records a rejection with its shortages, an expiry, and ignores events about orders it does not know', async () => {
    const rejected = await placed();
    await useCases().handle.execute(
      stock('stock.reservation.rejected', {
        orderId: rejected.id,
        reason: 'insufficient-stock',
        shortages: [{ productId: 1, requested: 3, available: 1 }],
      }),
    );
    expect(await useCases().get.execute(rejected.id, A)).to.deep.include({
      status: 'rejected',
      failureReason: 'insufficient-stock',
      shortages: [{ productId: 1, requested: 3, available: 1 }],
    });
    const expired = await placed();
    await useCases().handle.execute(confirmation(expired.id));
    await useCases().handle.execute(
      stock('stock.reservation.expired', { orderId: expired.id, reservationId: RESERVATION }),
    );
    expect((await useCases().get.execute(expired.id, A)).status).to.equal('expired');
    expect(await useCases().pay.execute(expired.id)).to.include({ status: 'expired' });
    expect(
      await useCases().handle.execute(
        stock('stock.reservation.expired', { orderId: randomUUID(), reservationId: RESERVATION }),
      ),
    ).to.equal('unknown-order');
  });

  it('shows where stock holds each line once it confirms, and keeps it through payment and shipment', async () => {
    const order = await placed();
    expect(await allocationsOf(order.id)).to.deep.equal([
      [1, []],
      [2, []],
    ]);
    expect(await useCases().handle.execute(confirmation(order.id))).to.equal('applied');
    const shown = [
      [1, HELD[0]!.allocations],
      [2, HELD[1]!.allocations],
    ];
    expect(await useCases().get.execute(order.id, A)).to.include({ status: 'reserved', version: 2 });
    expect(await allocationsOf(order.id)).to.deep.equal(shown);
    await useCases().pay.execute(order.id);
    await useCases().handle.execute(
      stock('stock.reservation.committed', { orderId: order.id, reservationId: RESERVATION }),
    );
    await useCases().handle.execute(
      shipment(order.id, [
        { productId: 1, locationId: 2, quantity: 3 },
        { productId: 2, locationId: 1, quantity: 1 },
      ]),
    );
    expect((await useCases().get.execute(order.id, A)).status).to.equal('shipped');
    expect(await allocationsOf(order.id)).to.deep.equal(shown);
  });

  it('confirms on the first version of the event, with no allocations, and learns them from the second', async () => {
    const order = await placed();
    expect(await useCases().handle.execute(firstConfirmation(order.id))).to.equal('applied');
    expect(await useCases().get.execute(order.id, A)).to.include({ status: 'reserved', reservationId: RESERVATION });
    expect(await allocationsOf(order.id)).to.deep.equal([
      [1, []],
      [2, []],
    ]);
    expect(await useCases().handle.execute(confirmation(order.id))).to.equal('applied');
    expect(await useCases().get.execute(order.id, A)).to.include({ status: 'reserved', version: 3 });
    expect((await allocationsOf(order.id))[0]).to.deep.equal([1, HELD[0]!.allocations]);
    // The other way round, as when v2 is handled first: the first version changes nothing.
    const other = await placed();
    await useCases().handle.execute(confirmation(other.id));
    expect(await useCases().handle.execute(firstConfirmation(other.id))).to.equal('unchanged');
    expect((await allocationsOf(other.id))[1]).to.deep.equal([2, HELD[1]!.allocations]);
  });

  it('pays once when payments race: one paid event', async () => {
    const order = await placed();
    await useCases().handle.execute(confirmation(order.id));
    await events();
    await Promise.all(Array.from({ length: 10 }, () => useCases().pay.execute(order.id)));
    expect((await events()).map((e) => e.type)).to.deep.equal(['sales.order.paid']);
  });
}

for (const { name, open } of STORES) describe(`Sales use cases ${name}`, () => salesUseCases(open));
