import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import type { Reservation, Shipment, StockReturn } from '../src';
import { inTransaction } from './stock-fixtures';
import { onOneStore, type OpenStockStore, type StockStoreUnderTest } from './stock-store';

chai.use(chaiAsPromised);
const { expect } = chai;

const EARLIER = new Date('2030-01-02T03:04:05.678Z');
const LATER = new Date('2030-01-02T04:00:00.001Z');

/**
 * What every ShipmentRepository and ReturnRepository adapter promises: a record read back exactly as it was added,
 * with its lines, by id and among its order's (oldest first); nothing of a unit of work that rolled back. And the
 * order's hold, which a shipment or a return locks first, found under the order's id.
 */
export function fulfilmentRepositoryContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  const orderId = randomUUID();

  const aShipment = (overrides: Partial<Shipment> = {}): Shipment => ({
    id: randomUUID(),
    orderId,
    lines: [
      { productId: 3, locationId: 1, quantity: 2 },
      { productId: 3, locationId: 2, quantity: 10_000 },
      { productId: 8, locationId: 1, quantity: 1 },
    ],
    carrier: 'DHL Express ünï',
    trackingNumber: 'JD014600006281230',
    createdAt: EARLIER,
    ...overrides,
  });
  const aReturn = (overrides: Partial<StockReturn> = {}): StockReturn => ({
    id: randomUUID(),
    orderId,
    lines: [
      { productId: 3, locationId: 1, quantity: 1, disposition: 'restock' },
      { productId: 3, locationId: 1, quantity: 2, disposition: 'quality-control' },
      { productId: 3, locationId: 1, quantity: 3, disposition: 'damaged' },
      { productId: 3, locationId: 1, quantity: 4, disposition: 'missing' },
      { productId: 3, locationId: 2, quantity: 5, disposition: 'restock' },
    ],
    reason: 'Arrived scratched',
    createdAt: EARLIER,
    ...overrides,
  });

  onOneStore(open, (opened) => (store = opened));

  it('reads a shipment back as it was added, with or without its carrier and tracking number', async () => {
    const shipments = [aShipment(), aShipment({ carrier: null, trackingNumber: null, lines: [aShipment().lines[1]!] })];
    await inTransaction(store, async (tx) => {
      for (const shipment of shipments) await tx.shipments.add(shipment);
      expect(await tx.shipments.findById(shipments[0]!.id), 'in its unit of work').to.deep.equal(shipments[0]);
    });
    for (const shipment of shipments) expect(await store.shipments.findById(shipment.id)).to.deep.equal(shipment);
    expect(await store.shipments.findById(randomUUID())).to.equal(undefined);
  });

  it("lists an order's shipments oldest first, and no other order's", async () => {
    const [later, first, other] = [
      aShipment({ createdAt: LATER }),
      aShipment(),
      aShipment({ orderId: randomUUID(), createdAt: EARLIER }),
    ];
    await inTransaction(store, async (tx) => {
      for (const shipment of [later, first, other]) await tx.shipments.add(shipment);
    });
    expect(await store.shipments.listForOrder(orderId)).to.deep.equal([first, later]);
    expect(await store.shipments.listForOrder(other.orderId)).to.deep.equal([other]);
    expect(await store.shipments.listForOrder(randomUUID())).to.deep.equal([]);
  });

  it('reads a return back as it was added, each disposition a line of its own, with or without a reason', async () => {
    const returns = [aReturn(), aReturn({ reason: null, createdAt: LATER })];
    await inTransaction(store, async (tx) => {
      for (const stockReturn of returns) await tx.returns.add(stockReturn);
    });
    for (const stockReturn of returns) expect(await store.returns.findById(stockReturn.id)).to.deep.equal(stockReturn);
    expect(await store.returns.listForOrder(orderId)).to.deep.equal(returns);
    expect(await store.returns.listForOrder(randomUUID())).to.deep.equal([]);
    expect(await store.returns.findById(randomUUID())).to.equal(undefined);
  });

  it('keeps nothing of a unit of work that rolled back', async () => {
    const [shipment, stockReturn] = [aShipment(), aReturn()];
    const failed = inTransaction(store, async (tx) => {
      await tx.shipments.add(shipment);
      await tx.returns.add(stockReturn);
      throw new Error('rolled back');
    });
    await expect(failed).to.be.rejectedWith('rolled back');
    expect(await store.shipments.findById(shipment.id)).to.equal(undefined);
    expect(await store.returns.findById(stockReturn.id)).to.equal(undefined);
  });

  describe("the order's hold, locked", () => {
    const anOrderHold = (reference: string): Reservation => ({
      id: randomUUID(),
      reference,
      origin: 'order',
      status: 'held',
      lines: [{ productId: 3, quantity: 1 }],
      expiresAt: LATER,
      createdAt: EARLIER,
      updatedAt: EARLIER,
    });

    it("is the order's hold, never an API hold whose reference is the order's id", async () => {
      const hold = anOrderHold(orderId);
      await inTransaction(store, async (tx) => {
        await tx.reservations.claim({ ...anOrderHold(randomUUID()), reference: orderId, origin: 'api', owner: 'a' });
        await tx.reservations.claim(hold);
      });
      expect((await inTransaction(store, (tx) => tx.reservations.lockForOrder(orderId)))?.id).to.equal(hold.id);
      expect(await inTransaction(store, (tx) => tx.reservations.lockForOrder(randomUUID()))).to.equal(undefined);
    });

    it('is held by one unit of work until it ends: a second waits for it', async () => {
      await inTransaction(store, (tx) => tx.reservations.claim(anOrderHold(orderId)));
      const steps: string[] = [];
      let locked!: () => void;
      const firstHasIt = new Promise<void>((resolve) => (locked = resolve));
      const first = inTransaction(store, async (tx) => {
        await tx.reservations.lockForOrder(orderId);
        locked();
        // Time for the second to reach its lock: it must still be waiting when this one ends.
        await sleep(200);
        steps.push('first ends');
      });
      await firstHasIt;
      const second = inTransaction(store, async (tx) => {
        await tx.reservations.lockForOrder(orderId);
        steps.push('second has it');
      });
      await Promise.all([first, second]);
      expect(steps).to.deep.equal(['first ends', 'second has it']);
    });
  });
}
