import { type EventType, newEvent } from '@commerce/contracts';
import {
  CommitForOrder,
  CreateProduct,
  type FulfilmentSettings,
  type OrderEventSettings,
  ReceiveReturn,
  ReserveForOrder,
  ReserveStock,
  ShipOrder,
} from '@stock/application';
import {
  DEFAULT_LOCATION_ID,
  OrderNotShippableError,
  ReservationRequest,
  ReturnRequest,
  ShipmentExceedsCommittedError,
  ShipmentRequest,
} from '@stock/domain';
import {
  aProduct,
  expectLedgersToSum,
  onOneStore,
  type OpenStockStore,
  type StockStoreUnderTest,
} from '@stock/domain/testing';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomUUID } from 'node:crypto';
import { STORES } from './stores';

chai.use(chaiAsPromised);
const { expect } = chai;

/**
 * Shipping and receiving returns on a store, through the use cases the routes call: the events they write in their
 * unit of work, a restock filling the backorders waiting at its location, and shipments racing for one order's last
 * units, one unit each, shipping exactly what it committed.
 */
function fulfilmentUseCases(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  const at = new Date('2026-11-29T10:00:00Z');
  const settings: FulfilmentSettings & OrderEventSettings = {
    clock: () => at,
    newId: randomUUID,
    defaultTtlSeconds: 900,
    consumer: 'stock-service',
  };
  const ship = (orderId: string, lines: { productId: number; quantity: number; locationId?: number }[]) =>
    new ShipOrder(store.unitOfWork, settings).execute(ShipmentRequest.create({ orderId, lines }), {
      caller: 'warehouse',
    });

  /** A product of `quantityInStock` at the default location, and a paid order of `quantity` of it. */
  async function aPaidOrder(quantityInStock: number, quantity: number, details: Parameters<typeof aProduct>[0] = {}) {
    const created = new CreateProduct(store.unitOfWork, settings.clock);
    const { value: product } = await created.execute(aProduct({ quantityInStock, ...details }));
    const orderId = randomUUID();
    await new ReserveForOrder(store.unitOfWork, settings).execute(
      newEvent('sales.order.placed', { orderId, lines: [{ productId: product.id, quantity }] }),
    );
    await new CommitForOrder(store.unitOfWork, settings).execute(newEvent('sales.order.paid', { orderId }));
    return { product, orderId };
  }

  /** The events written since the last call, of `types`, oldest first (leased and marked, as a relay would). */
  async function published(...types: EventType[]) {
    const rows = await store.outbox.claim(10_000, 60_000, Date.now());
    await store.outbox.markPublished(
      rows.map((row) => row.id),
      Date.now(),
    );
    return rows
      .map((row) => JSON.parse(row.payload) as { type: EventType; data: unknown })
      .filter((event) => types.includes(event.type))
      .map(({ type, data }) => ({ type, data }));
  }

  onOneStore(open, (opened) => (store = opened));

  it('writes stock.shipment.created and stock.return.received with each, in their unit of work', async () => {
    const { product, orderId } = await aPaidOrder(5, 3);
    const shipped = (await ship(orderId, [{ productId: product.id, quantity: 2 }])).value;
    const request = ReturnRequest.create({
      orderId,
      lines: [{ productId: product.id, quantity: 1, locationId: DEFAULT_LOCATION_ID, disposition: 'damaged' }],
      reason: 'Dented',
    });
    const returned = (await new ReceiveReturn(store.unitOfWork, settings).execute(request)).value;
    expect(await published('stock.shipment.created', 'stock.return.received')).to.deep.equal([
      {
        type: 'stock.shipment.created',
        data: {
          shipmentId: shipped.id,
          orderId,
          lines: [{ productId: product.id, locationId: DEFAULT_LOCATION_ID, quantity: 2 }],
          carrier: null,
          trackingNumber: null,
        },
      },
      {
        type: 'stock.return.received',
        data: {
          returnId: returned.id,
          orderId,
          lines: [{ productId: product.id, locationId: DEFAULT_LOCATION_ID, quantity: 1, disposition: 'damaged' }],
          reason: 'Dented',
        },
      },
    ]);
    const movements = await store.movements.list(product.id, { after: 0, limit: 100 });
    expect(movements.slice(-2).map(({ kind, actor, reason }) => [kind, actor, reason])).to.deep.equal([
      ['shipped', 'warehouse', `shipment ${shipped.id}`],
      ['returned', 'anonymous', `return ${returned.id}`],
    ]);
    await expectLedgersToSum(store, [product]);
  });

  it('refuses a shipment beyond what is committed with nothing moved, and ships nothing of an unpaid order', async () => {
    const { product, orderId } = await aPaidOrder(5, 3);
    const before = await store.movements.list(product.id, { after: 0, limit: 100 });
    await expect(ship(orderId, [{ productId: product.id, quantity: 4 }])).to.be.rejectedWith(
      ShipmentExceedsCommittedError,
    );
    await expect(ship(randomUUID(), [{ productId: product.id, quantity: 1 }])).to.be.rejectedWith(
      OrderNotShippableError,
    );
    expect(await store.movements.list(product.id, { after: 0, limit: 100 })).to.deep.equal(before);
    expect(await published('stock.shipment.created')).to.deep.equal([]);
  });

  it('restocks returned units into the backorders waiting at their location', async () => {
    const { product, orderId } = await aPaidOrder(2, 2, { backorderLimit: 1 });
    await ship(orderId, [{ productId: product.id, quantity: 2 }]);
    const backordered = ReservationRequest.create({
      reference: 'waits-for-stock',
      lines: [{ productId: product.id, quantity: 1 }],
      allowBackorder: true,
    });
    const { value } = await new ReserveStock(store.unitOfWork, settings).execute('shop', backordered);
    expect(value.reservation.lines[0]).to.include({ backorderedQuantity: 1 });
    const request = ReturnRequest.create({
      orderId,
      lines: [{ productId: product.id, quantity: 1, locationId: DEFAULT_LOCATION_ID, disposition: 'restock' }],
    });
    await new ReceiveReturn(store.unitOfWork, settings).execute(request);
    expect(await store.products.findById(product.id)).to.include({
      quantityInStock: 1,
      reservedQuantity: 1,
      backorderedQuantity: 0,
    });
    expect((await store.reservations.findById(value.reservation.id))!.lines[0]).to.deep.include({
      allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 1 }],
      backorderedQuantity: 0,
    });
    const movements = await store.movements.list(product.id, { after: 0, limit: 100 });
    expect(movements.slice(-2).map((movement) => movement.kind)).to.deep.equal(['returned', 'backorder-filled']);
    await expectLedgersToSum(store, [product]);
  });

  it('ships exactly what an order committed when shipments of one unit each race for it', async () => {
    const { product, orderId } = await aPaidOrder(30, 20);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, () => ship(orderId, [{ productId: product.id, quantity: 1 }])),
    );
    const shipped = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as Error] : []));
    expect(shipped).to.have.length(20);
    expect(
      refused.every(
        (error) => error instanceof OrderNotShippableError || error instanceof ShipmentExceedsCommittedError,
      ),
    ).to.equal(true);
    expect(await store.products.findById(product.id)).to.include({ quantityInStock: 10, committedQuantity: 0 });
    expect(
      (await store.shipments.listForOrder(orderId)).flatMap((s) => s.lines).reduce((n, l) => n + l.quantity, 0),
    ).to.equal(20);
    await expectLedgersToSum(store, [product]);
  });
}

for (const { name, open } of STORES) describe(`Shipments and returns ${name}`, () => fulfilmentUseCases(open));
