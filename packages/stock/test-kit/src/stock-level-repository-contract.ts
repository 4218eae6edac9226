import {
  type AppendedMovement,
  change,
  DEFAULT_LOCATION_CODE,
  DEFAULT_LOCATION_ID,
  holdChanges,
  type LevelChange,
  planAdjustment,
  planHold,
  STOCK_MAX,
} from '@stock/domain';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { aContext } from './builders';
import { expectLedgersToSum } from './ledger';
import { applyChanges, aStoredLocation, aStoredProduct, inTransaction, levelsOf, movementsOf } from './stock-fixtures';
import type { OpenStockStore, StockStoreUnderTest } from './stock-store';

chai.use(chaiAsPromised);
const { expect } = chai;

const level = (locationId: number, onHand: number, reserved = 0, incoming = 0) => ({
  locationId,
  onHand,
  reserved,
  incoming,
});

/**
 * What every StockLevelRepository adapter promises: a product's stock by
 * location, read under its lock, changed by `apply` with one movement per
 * change that moves stock, and never past the bounds the domain's plans keep
 * (the guard throws and the unit of work leaves nothing).
 */
export function stockLevelRepositoryContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  let second: number;

  before(async function () {
    store = await open(this, Date.now);
  });
  beforeEach(async () => {
    await store.reset();
    second = (await aStoredLocation(store, { code: 'second', priority: 1 })).id;
  });
  after(async () => store?.close());

  it('locks a product and answers it with its levels in location id order, undefined for a missing one', async () => {
    const { id } = await aStoredProduct(store, { quantityInStock: 3 });
    await applyChanges(store, id, [change('adjusted', second, { onHand: 4 })]);
    const locked = await inTransaction(store, (tx) => tx.levels.lock(id));
    expect(locked?.product).to.include({ id, quantityInStock: 7, reservedQuantity: 0, version: 2 });
    expect(locked?.levels).to.deep.equal([level(DEFAULT_LOCATION_ID, 3), level(second, 4)]);
    expect(await inTransaction(store, (tx) => tx.levels.lock(424242))).to.equal(undefined);
  });

  it('locks several products in id order with their levels, once each, missing ones absent', async () => {
    const first = await aStoredProduct(store, { quantityInStock: 3 });
    const other = await aStoredProduct(store, { quantityInStock: 1 });
    await applyChanges(store, first.id, [change('adjusted', second, { onHand: 4 })]);
    const locked = await inTransaction(store, (tx) => tx.levels.lockMany([other.id, 424242, first.id, other.id]));
    expect(locked.map(({ product }) => product.id)).to.deep.equal([first.id, other.id]);
    expect(locked[0]!.levels).to.deep.equal([level(DEFAULT_LOCATION_ID, 3), level(second, 4)]);
    expect(locked[1]!.levels).to.deep.equal([level(DEFAULT_LOCATION_ID, 1)]);
    expect(await inTransaction(store, (tx) => tx.levels.lockMany([]))).to.deep.equal([]);
  });

  it('applies a batch as `apply` applies each: levels, totals, alert, version, one movement per change', async () => {
    const a = await aStoredProduct(store, { quantityInStock: 5 });
    const b = await aStoredProduct(store, { quantityInStock: 2 });
    const context = aContext({ requestId: 'batch' });
    const after = await inTransaction(store, async (tx) => {
      await tx.levels.lockMany([a.id, b.id]);
      return tx.levels.applyMany(
        [
          { productId: b.id, changes: [change('imported', second, { onHand: 6 })], product: { lowStockAlert: true } },
          { productId: a.id, changes: [change('imported', DEFAULT_LOCATION_ID, { onHand: -2 })], product: {} },
        ],
        context,
      );
    });
    expect(after.map(({ id, quantityInStock, version }) => [id, quantityInStock, version])).to.deep.equal([
      [b.id, 8, 2],
      [a.id, 3, 2],
    ]);
    expect(after[0]!.stock.lowStockAlert).to.equal(true);
    expect(await levelsOf(store, b.id)).to.deep.equal([level(DEFAULT_LOCATION_ID, 2), level(second, 6)]);
    expect(await levelsOf(store, a.id)).to.deep.equal([level(DEFAULT_LOCATION_ID, 3)]);
    const last = (await movementsOf(store, b.id)).at(-1)!;
    expect(last).to.include({ kind: 'imported', locationId: second, quantityDelta: 6, requestId: 'batch' });
    await expectLedgersToSum(store, [a, b]);
  });

  it('applies none of a batch when one of its changes breaks a bound', async () => {
    const a = await aStoredProduct(store, { quantityInStock: 5 });
    const b = await aStoredProduct(store, { quantityInStock: 2 });
    const batch = [
      { productId: a.id, changes: [change('imported', DEFAULT_LOCATION_ID, { onHand: 1 })], product: {} },
      { productId: b.id, changes: [change('imported', DEFAULT_LOCATION_ID, { onHand: -3 })], product: {} },
    ];
    await expect(inTransaction(store, (tx) => tx.levels.applyMany(batch, aContext()))).to.be.rejected;
    expect(await store.products.findById(a.id)).to.include({ quantityInStock: 5, version: 1 });
    expect(await levelsOf(store, b.id)).to.deep.equal([level(DEFAULT_LOCATION_ID, 2)]);
  });

  it('lists a product’s levels with their location codes, undefined for a missing product', async () => {
    const { id } = await aStoredProduct(store, { quantityInStock: 3 });
    await applyChanges(store, id, [
      change('adjusted', second, { onHand: 4 }),
      change('reserved', second, { reserved: 1 }),
      change('transfer-sent', DEFAULT_LOCATION_ID, { incoming: 2 }, 'transfer'),
    ]);
    expect(await store.levels.list(id)).to.deep.equal([
      { ...level(DEFAULT_LOCATION_ID, 3, 0, 2), locationCode: DEFAULT_LOCATION_CODE },
      { ...level(second, 4, 1), locationCode: 'second' },
    ]);
    expect(await store.levels.list(424242)).to.equal(undefined);
  });

  it('lists the levels of a batch of products in one read, each as `list` answers it, missing ones absent', async () => {
    const first = await aStoredProduct(store, { quantityInStock: 3 });
    const other = await aStoredProduct(store, { quantityInStock: 0 });
    await applyChanges(store, first.id, [change('adjusted', second, { onHand: 4 })]);
    const levels = await store.levels.listMany([other.id, 424242, first.id]);
    expect([...levels.keys()].sort((a, b) => a - b)).to.deep.equal([first.id, other.id]);
    expect(levels.get(first.id)).to.deep.equal(await store.levels.list(first.id));
    expect(levels.get(other.id)).to.deep.equal(await store.levels.list(other.id));
    expect((await store.levels.listMany([])).size).to.equal(0);
  });

  it('creates the levels a change needs, moves the product’s totals and version, and answers the product after', async () => {
    const { id } = await aStoredProduct(store, { quantityInStock: 5 });
    const after = await applyChanges(store, id, [
      change('adjusted', second, { onHand: 8 }),
      change('reserved', second, { reserved: 2 }),
      change('reserved', DEFAULT_LOCATION_ID, { reserved: 5 }),
    ]);
    expect(after).to.include({ id, quantityInStock: 13, reservedQuantity: 7, availableQuantity: 6, version: 2 });
    expect(await store.products.findById(id)).to.include({ quantityInStock: 13, reservedQuantity: 7, version: 2 });
    expect(await levelsOf(store, id)).to.deep.equal([level(DEFAULT_LOCATION_ID, 5, 5), level(second, 8, 2)]);
  });

  it('appends one movement per change that moves stock, with its kind, location, transfer and context', async () => {
    const { id } = await aStoredProduct(store, { quantityInStock: 5 });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const context = aContext({ reason: 'count', reservationId: 'r-1', requestId: 'q-1', actor: 'shop-a', traceId });
    await applyChanges(
      store,
      id,
      [
        change('transfer-sent', DEFAULT_LOCATION_ID, { onHand: -2 }, 'transfer-1'),
        change('transfer-sent', second, { incoming: 2 }, 'transfer-1'),
        change('reserved', DEFAULT_LOCATION_ID, { reserved: 3 }),
        change('committed', DEFAULT_LOCATION_ID, { onHand: -1, reserved: -1 }),
      ],
      {},
      context,
    );
    const movements = (await movementsOf(store, id)).slice(1);
    expect(movements.map(({ id: _id, at: _at, ...rest }) => rest)).to.deep.equal([
      {
        productId: id,
        locationId: DEFAULT_LOCATION_ID,
        transferId: 'transfer-1',
        kind: 'transfer-sent',
        quantityDelta: -2,
        reservedDelta: 0,
        quantityAfter: 3,
        reservedAfter: 0,
        reason: 'count',
        reservationId: 'r-1',
        requestId: 'q-1',
        actor: 'shop-a',
        traceId,
        sequence: 2,
      },
      {
        productId: id,
        locationId: DEFAULT_LOCATION_ID,
        kind: 'reserved',
        quantityDelta: 0,
        reservedDelta: 3,
        quantityAfter: 3,
        reservedAfter: 3,
        reason: 'count',
        reservationId: 'r-1',
        requestId: 'q-1',
        actor: 'shop-a',
        traceId,
        sequence: 3,
      },
      {
        productId: id,
        locationId: DEFAULT_LOCATION_ID,
        kind: 'committed',
        quantityDelta: -1,
        reservedDelta: -1,
        quantityAfter: 2,
        reservedAfter: 2,
        reason: 'count',
        reservationId: 'r-1',
        requestId: 'q-1',
        actor: 'shop-a',
        traceId,
        sequence: 4,
      },
    ]);
    for (const movement of movements) expect(movement.at.getTime()).to.equal(context.at.getTime());
    expect(movements[1]!.id).to.be.greaterThan(movements[0]!.id);
  });

  it('answers the movements it appended when asked: id, sequence (+1 per product), location and the level after each', async () => {
    const { id } = await aStoredProduct(store, { quantityInStock: 5 });
    const appended: AppendedMovement[] = [];
    await inTransaction(store, async (tx) => {
      await tx.levels.lock(id);
      return tx.levels.apply(
        id,
        [
          change('transfer-sent', DEFAULT_LOCATION_ID, { onHand: -2 }, 'transfer-1'),
          change('transfer-sent', second, { incoming: 2 }, 'transfer-1'),
          change('transfer-received', second, { onHand: 2, incoming: -2 }, 'transfer-1'),
          change('reserved', DEFAULT_LOCATION_ID, { reserved: 1 }),
          change('reserved', second, { reserved: 2 }),
        ],
        {},
        aContext(),
        appended,
      );
    });
    const movements = (await movementsOf(store, id)).slice(1);
    expect(appended.map(({ at: _at, ...rest }) => rest)).to.deep.equal([
      {
        id: movements[0]!.id,
        sequence: 2,
        kind: 'transfer-sent',
        locationId: DEFAULT_LOCATION_ID,
        onHand: 3,
        reserved: 0,
      },
      { id: movements[1]!.id, sequence: 3, kind: 'transfer-received', locationId: second, onHand: 2, reserved: 0 },
      { id: movements[2]!.id, sequence: 4, kind: 'reserved', locationId: DEFAULT_LOCATION_ID, onHand: 3, reserved: 1 },
      { id: movements[3]!.id, sequence: 5, kind: 'reserved', locationId: second, onHand: 2, reserved: 2 },
    ]);
    expect(movements.map((m) => m.sequence)).to.deep.equal([2, 3, 4, 5]);
  });

  it('appends no movement for a change of incoming units alone, yet moves the product to its next version', async () => {
    const { id } = await aStoredProduct(store, { quantityInStock: 5 });
    const after = await applyChanges(store, id, [change('transfer-sent', second, { incoming: 4 }, 'transfer-2')]);
    expect(after.version).to.equal(2);
    expect(await levelsOf(store, id)).to.deep.equal([level(DEFAULT_LOCATION_ID, 5), level(second, 0, 0, 4)]);
    expect((await movementsOf(store, id)).map((m) => m.kind)).to.deep.equal(['created']);
    await applyChanges(store, id, [change('transfer-received', second, { onHand: 4, incoming: -4 }, 'transfer-2')]);
    expect(await levelsOf(store, id)).to.deep.equal([level(DEFAULT_LOCATION_ID, 5), level(second, 4)]);
    const received = (await movementsOf(store, id)).slice(1);
    expect(received).to.have.length(1);
    expect(received[0]).to.include({ kind: 'transfer-received', locationId: second, transferId: 'transfer-2' });
    expect(received[0]).to.include({ quantityDelta: 4, reservedDelta: 0, quantityAfter: 9 });
  });

  it('adds to the product’s backordered units and sets its low-stock alert, and keeps both when not asked', async () => {
    const { id } = await aStoredProduct(store, { quantityInStock: 2, backorderLimit: 5, lowStockThreshold: 3 });
    const backordered = await applyChanges(store, id, [], { backordered: 4, lowStockAlert: true });
    expect(backordered).to.include({ backorderedQuantity: 4, availableQuantity: -2, stockState: 'out', version: 2 });
    expect(backordered.stock.lowStockAlert).to.equal(true);
    const kept = await applyChanges(store, id, [change('adjusted', DEFAULT_LOCATION_ID, { onHand: 1 })]);
    expect(kept).to.include({ backorderedQuantity: 4, quantityInStock: 3 });
    expect(kept.stock.lowStockAlert).to.equal(true);
    const filled = await applyChanges(store, id, [change('backorder-filled', DEFAULT_LOCATION_ID, { reserved: 3 })], {
      backordered: -3,
      lowStockAlert: false,
    });
    expect(filled).to.include({ backorderedQuantity: 1, reservedQuantity: 3, availableQuantity: -1 });
    expect(filled.stock.lowStockAlert).to.equal(false);
    const found = (await store.products.findById(id))!;
    expect(found).to.include({ backorderedQuantity: 1, version: 4 });
    expect(found.stock.lowStockAlert).to.equal(false);
    expect((await movementsOf(store, id)).map((m) => m.kind)).to.deep.equal([
      'created',
      'adjusted',
      'backorder-filled',
    ]);
  });

  /** Changes the guard refuses, from a product with 10 at the default location, 3 of them held, and 4 at `second`. */
  const refused: [string, (second: number) => LevelChange[], { backordered?: number }?][] = [
    ['onHand below reserved', () => [change('adjusted', DEFAULT_LOCATION_ID, { onHand: -8 })]],
    ['onHand below 0 where nothing is held', (at) => [change('adjusted', at, { onHand: -5 })]],
    ['onHand below 0 at a location with no level', () => [change('adjusted', 424242, { onHand: -1 })]],
    ['reserved above onHand', (at) => [change('reserved', at, { reserved: 5 })]],
    ['reserved below 0', (at) => [change('released', at, { reserved: -1 })]],
    ['commit of more than is held', () => [change('committed', DEFAULT_LOCATION_ID, { onHand: -4, reserved: -4 })]],
    ['incoming below 0', (at) => [change('transfer-cancelled', at, { incoming: -1 }, 'transfer')]],
    ['the product’s stock above STOCK_MAX', (at) => [change('adjusted', at, { onHand: STOCK_MAX - 13 })]],
    [
      'a good change, then a bad one',
      (at) => [change('adjusted', at, { onHand: 2 }), change('adjusted', DEFAULT_LOCATION_ID, { onHand: -8 })],
    ],
    ['backordered below 0', () => [], { backordered: -1 }],
  ];
  for (const [name, changes, product] of refused) {
    it(`throws and leaves nothing when a change would break its bounds: ${name}`, async () => {
      const { id } = await aStoredProduct(store, { quantityInStock: 10 });
      await applyChanges(store, id, [
        change('reserved', DEFAULT_LOCATION_ID, { reserved: 3 }),
        change('adjusted', second, { onHand: 4 }),
      ]);
      const before = await store.products.findById(id);
      const levels = await levelsOf(store, id);
      const movements = await movementsOf(store, id);
      await expect(applyChanges(store, id, changes(second), product)).to.be.rejected;
      expect(await store.products.findById(id)).to.deep.equal(before);
      expect(await levelsOf(store, id)).to.deep.equal(levels);
      expect(await movementsOf(store, id)).to.deep.equal(movements);
    });
  }

  it('reaches the largest stock exactly, summed over locations', async () => {
    const { id } = await aStoredProduct(store, { quantityInStock: STOCK_MAX - 7 });
    const full = await applyChanges(store, id, [change('adjusted', second, { onHand: 7 })]);
    expect(full.quantityInStock).to.equal(STOCK_MAX);
    await expect(applyChanges(store, id, [change('adjusted', second, { onHand: 1 })])).to.be.rejected;
  });

  it('loses no concurrent adjustment and never goes below what is held, each planned under the lock', async () => {
    const { id } = await aStoredProduct(store, { quantityInStock: 50 });
    await applyChanges(store, id, [change('reserved', DEFAULT_LOCATION_ID, { reserved: 10 })]);
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, () =>
        inTransaction(store, async (tx) => {
          const stock = (await tx.levels.lock(id))!;
          const plan = planAdjustment(stock, DEFAULT_LOCATION_ID, -1);
          if ('status' in plan) return plan.status;
          await tx.levels.apply(id, [plan], {}, aContext());
          return 'adjusted';
        }),
      ),
    );
    expect(outcomes.filter((o) => o === 'adjusted')).to.have.length(40);
    expect(outcomes.filter((o) => o === 'below-minimum')).to.have.length(20);
    expect(await levelsOf(store, id)).to.deep.equal([level(DEFAULT_LOCATION_ID, 10, 10)]);
    await expectLedgersToSum(store, [{ id }]);
  });

  it('holds exactly what two locations have under 300 concurrent holds of 1 (10 + 20 give 30)', async () => {
    const { id } = await aStoredProduct(store, { quantityInStock: 10 });
    await applyChanges(store, id, [change('adjusted', second, { onHand: 20 })]);
    const locations = await store.locations.list();
    const outcomes = await Promise.all(
      Array.from({ length: 300 }, () =>
        inTransaction(store, async (tx) => {
          const stock = (await tx.levels.lock(id))!;
          const plan = planHold(stock, locations, { quantity: 1 }, 'priority');
          if ('status' in plan) return plan.status;
          await tx.levels.apply(id, holdChanges(plan), {}, aContext());
          return 'held';
        }),
      ),
    );
    expect(outcomes.filter((o) => o === 'held')).to.have.length(30);
    expect(await levelsOf(store, id)).to.deep.equal([level(DEFAULT_LOCATION_ID, 10, 10), level(second, 20, 20)]);
    expect(await store.products.findById(id)).to.include({ reservedQuantity: 30, availableQuantity: 0 });
    await expectLedgersToSum(store, [{ id }]);
  });
}
