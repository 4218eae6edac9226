import {
  DEFAULT_LOCATION_CODE,
  DEFAULT_LOCATION_ID,
  DEFAULT_STOCK_POLICY,
  isRefusal,
  type LocationLevel,
  type MovementContext,
  Product,
  ProductStock,
  STOCK_MAX,
  StockChange,
  type StockMovement,
} from '../src';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { aContext, aTransfer } from './builders';
import { expectLedgersToSum } from './ledger';
import {
  adjustStored,
  aStoredLocation,
  aStoredProduct,
  changeOf,
  type Decision,
  holdStored,
  inTransaction,
  levelsOf,
  movementsOf,
  saveDecided,
} from './stock-fixtures';
import { onOneStore, type OpenStockStore, type StockStoreUnderTest } from './stock-store';

chai.use(chaiAsPromised);
const { expect } = chai;

const policy = DEFAULT_STOCK_POLICY;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

type States = Partial<Pick<LocationLevel, 'committed' | 'qualityControl' | 'damaged'>>;

const level = (
  locationId: number,
  onHand: number,
  reserved = 0,
  incoming = 0,
  { committed = 0, qualityControl = 0, damaged = 0 }: States = {},
): LocationLevel => ({ locationId, onHand, reserved, committed, qualityControl, damaged, incoming });

/** What a save must write of a change's `after`, and a lock read back: everything of the stock but the details. */
function stateOf(stock: ProductStock | undefined) {
  if (!stock) return undefined;
  const { product, levels, sequence } = stock;
  return {
    product: {
      id: product.id,
      quantityInStock: product.quantityInStock,
      reservedQuantity: product.reservedQuantity,
      committedQuantity: product.committedQuantity,
      qualityControlQuantity: product.qualityControlQuantity,
      damagedQuantity: product.damagedQuantity,
      backorderedQuantity: product.backorderedQuantity,
      lowStockAlert: product.stock.lowStockAlert,
      version: product.version,
    },
    levels: levels.map(({ locationId, onHand, reserved, incoming, ...states }) =>
      level(locationId, onHand, reserved, incoming, states),
    ),
    sequence,
  };
}

/** `change`, followed by the change `next` answers from the stock after it. */
function andThen(change: StockChange, next: Decision): StockChange {
  return change.followedBy(changeOf(next(change.after)));
}

/**
 * A change the aggregate would never answer, made by hand: the product at its
 * next version as it was, but `broken` as its level after, with the one
 * movement that would make it. What a store's declared invariants refuse.
 */
function breaking(before: ProductStock, broken: LocationLevel): StockChange {
  const { product } = before;
  const was = before.levelAt(broken.locationId);
  const after = ProductStock.of(
    Product.of(product.id, product.details, product.version + 1, product.reservedQuantity, product.stock),
    [...before.levels.filter((each) => each.locationId !== broken.locationId), broken],
    before.sequence + 1,
  );
  const movement = {
    kind: 'adjusted' as const,
    locationId: broken.locationId,
    quantityDelta: broken.onHand - was.onHand,
    reservedDelta: broken.reserved - was.reserved,
    committedDelta: broken.committed - was.committed,
    qualityControlDelta: broken.qualityControl - was.qualityControl,
    damagedDelta: broken.damaged - was.damaged,
    quantityAfter: product.quantityInStock,
    reservedAfter: product.reservedQuantity,
    reasonCode: 'correction' as const,
    onHand: broken.onHand,
    reserved: broken.reserved,
    committed: broken.committed,
    qualityControl: broken.qualityControl,
    damaged: broken.damaged,
    sequence: before.sequence + 1,
  };
  return new StockChange(before, after, [{ movements: [movement] }]);
}

/**
 * What every ProductStockRepository adapter promises: a product's stock read
 * under its lock (the product, its levels, its ledger sequence), and `save`
 * writing what the ProductStock aggregate decided exactly as it says, with
 * its movements appended to the ledger under the change's context. It
 * decides nothing: it only refuses a change not decided from the version it
 * stores, or one that breaks a level's declared invariant (the safety net),
 * throwing with nothing written.
 */
export function productStockRepositoryContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  let second: number;

  onOneStore(
    open,
    (opened) => (store = opened),
    async () => {
      second = (await aStoredLocation(store, { code: 'second', priority: 1 })).id;
    },
  );

  const locked = (productId: number) => inTransaction(store, (tx) => tx.stock.lock(productId));

  /** Locks the product, lets `decide` decide and saves the change, as a use case does: the change and the answer. */
  const saved = (productId: number, decide: Decision, context: MovementContext = aContext()) =>
    inTransaction(store, async (tx) => {
      const change = changeOf(decide((await tx.stock.lock(productId))!));
      const appended = await tx.stock.save(change, context);
      return { change, appended };
    });

  /** Everything a refused save must leave as it was. */
  const snapshotOf = async (productId: number) => ({
    product: await store.products.findById(productId),
    levels: await levelsOf(store, productId),
    ledger: await movementsOf(store, productId),
  });

  describe('lock', () => {
    it('answers the product, its levels in location id order (not priority) and its ledger sequence', async () => {
      const first = (await aStoredLocation(store, { code: 'first', priority: -5 })).id;
      const { id } = await aStoredProduct(store, { quantityInStock: 3 });
      await adjustStored(store, id, first, 2);
      await adjustStored(store, id, second, 4);
      await holdStored(store, id, { quantity: 1, locationId: second });
      const stock = await locked(id);
      expect(stock?.product).to.include({ id, quantityInStock: 9, reservedQuantity: 1, version: 4 });
      expect(stock?.levels).to.deep.equal([level(DEFAULT_LOCATION_ID, 3), level(second, 4, 1), level(first, 2)]);
      expect(stock?.sequence).to.equal(4);
    });

    it('answers undefined for a product that does not exist', async () => {
      expect(await locked(424242)).to.equal(undefined);
    });

    it('locks several products in id order, once each, missing ones absent', async () => {
      const a = await aStoredProduct(store, { quantityInStock: 3 });
      const b = await aStoredProduct(store, { quantityInStock: 1 });
      await adjustStored(store, a.id, second, 4);
      const stocks = await inTransaction(store, (tx) => tx.stock.lockMany([b.id, 424242, a.id, b.id]));
      expect(stocks.map(stateOf)).to.deep.equal([stateOf(await locked(a.id)), stateOf(await locked(b.id))]);
      expect(stocks[0]!.levels).to.deep.equal([level(DEFAULT_LOCATION_ID, 3), level(second, 4)]);
      expect(stocks.map(({ sequence }) => sequence)).to.deep.equal([2, 1]);
      expect(await inTransaction(store, (tx) => tx.stock.lockMany([]))).to.deep.equal([]);
    });
  });

  describe('list', () => {
    it('lists a product’s levels with their location codes, undefined for a missing product', async () => {
      const { id } = await aStoredProduct(store, { quantityInStock: 3 });
      await adjustStored(store, id, second, 4);
      const transfer = aTransfer({
        productId: id,
        fromLocationId: second,
        toLocationId: DEFAULT_LOCATION_ID,
        quantity: 2,
      });
      await saveDecided(store, id, (stock) => stock.sendTransfer(transfer, policy));
      await holdStored(store, id, { quantity: 1, locationId: second });
      expect(await store.stock.list(id)).to.deep.equal([
        { ...level(DEFAULT_LOCATION_ID, 3, 0, 2), locationCode: DEFAULT_LOCATION_CODE },
        { ...level(second, 2, 1), locationCode: 'second' },
      ]);
      expect(await store.stock.list(424242)).to.equal(undefined);
    });

    it('lists the levels of a batch of products in one read, each as `list` answers it, missing ones absent', async () => {
      const a = await aStoredProduct(store, { quantityInStock: 3 });
      const b = await aStoredProduct(store, { quantityInStock: 0 });
      await adjustStored(store, a.id, second, 4);
      const levels = await store.stock.listMany([b.id, 424242, a.id]);
      expect([...levels.keys()].sort((x, y) => x - y)).to.deep.equal([a.id, b.id]);
      expect(levels.get(a.id)).to.deep.equal(await store.stock.list(a.id));
      expect(levels.get(b.id)).to.deep.equal(await store.stock.list(b.id));
      expect((await store.stock.listMany([])).size).to.equal(0);
    });
  });

  describe('save', () => {
    it('writes what each verb decided as it is: the stock locked after it is the change’s after', async () => {
      const { id } = await aStoredProduct(store, { quantityInStock: 5, backorderLimit: 4, lowStockThreshold: 3 });
      const locations = await store.locations.list();
      const transfer = aTransfer({ productId: id, toLocationId: second, quantity: 2 });
      const committed = { allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 6 }], backordered: 0 };
      const story: [string, Decision][] = [
        ['a PUT’s stock at the default location', (stock) => stock.replace(8, policy)],
        ['stock at a location without a level, which it creates', (stock) => stock.adjust(second, 4, policy)],
        ['a transfer sent: on hand out here, incoming there', (stock) => stock.sendTransfer(transfer, policy)],
        [
          'a hold over both locations, backordering the rest, turning low',
          (stock) => stock.hold({ quantity: 12, allowBackorder: true }, locations, 'priority', policy),
        ],
        ['the transfer received', (stock) => stock.endTransfer(transfer, 'received', policy)],
        [
          'the backorder filled where the stock arrived',
          (stock) => stock.fill(second, [{ reservationId: 'r-1', quantity: 2 }], policy),
        ],
        ['the hold committed at the default location', (stock) => stock.settle(committed, 'committed', policy)],
        [
          'stock back above the threshold, restoring the alert',
          (stock) => stock.adjust(DEFAULT_LOCATION_ID, 5, policy),
        ],
        ['part of the committed units shipped', (stock) => stock.ship(DEFAULT_LOCATION_ID, 4, policy)],
        [
          'a unit returned for quality control',
          (stock) => stock.receiveReturn(DEFAULT_LOCATION_ID, 1, 'quality-control', policy),
        ],
        ['two units returned damaged', (stock) => stock.receiveReturn(second, 2, 'damaged', policy)],
        ['a unit that never came back', (stock) => stock.receiveReturn(second, 1, 'missing', policy)],
        [
          'the unit in quality control passed',
          (stock) => stock.changeState(DEFAULT_LOCATION_ID, 1, { from: 'quality-control', to: 'available' }, policy),
        ],
        ['the damaged units written off', (stock) => stock.adjust(second, -2, policy, { state: 'damaged' })],
        [
          'the units committed and not shipped released',
          (stock) => stock.releaseCommitted([{ locationId: DEFAULT_LOCATION_ID, quantity: 2 }], policy),
        ],
      ];
      for (const [name, decide] of story) {
        const { change, appended } = await saved(id, decide);
        expect(stateOf(await locked(id)), name).to.deep.equal(stateOf(change.after));
        expect(
          appended.map(({ sequence }) => sequence),
          name,
        ).to.deep.equal(change.movements.map((m) => m.sequence));
      }
      expect(stateOf(await locked(id))).to.deep.equal({
        product: {
          id,
          quantityInStock: 14,
          reservedQuantity: 6,
          committedQuantity: 0,
          qualityControlQuantity: 0,
          damagedQuantity: 0,
          backorderedQuantity: 0,
          lowStockAlert: false,
          version: 16,
        },
        levels: [level(DEFAULT_LOCATION_ID, 8), level(second, 6, 6)],
        sequence: 17,
      });
      expect((await movementsOf(store, id)).map(({ sequence }) => sequence)).to.deep.equal(
        Array.from({ length: 17 }, (_, index) => index + 1),
      );
      await expectLedgersToSum(store, [{ id }]);
    });

    it('keeps every state a change leaves at a level, and the product’s totals of each', async () => {
      const { id } = await aStoredProduct(store, { quantityInStock: 10 });
      const committed = { allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 3 }], backordered: 0 };
      const held = (stock: ProductStock) => {
        const answer = stock.hold({ quantity: 4 }, [], 'priority', policy);
        return isRefusal(answer) ? answer : answer.change;
      };
      await saved(id, (stock) =>
        andThen(
          andThen(
            andThen(changeOf(held(stock)), (holding) => holding.settle(committed, 'committed', policy)),
            (paid) => paid.changeState(DEFAULT_LOCATION_ID, 2, { from: 'available', to: 'quality-control' }, policy),
          ),
          (inspected) => inspected.receiveReturn(second, 3, 'damaged', policy),
        ),
      );
      const stock = (await locked(id))!;
      expect(stock.levels).to.deep.equal([
        level(DEFAULT_LOCATION_ID, 10, 1, 0, { committed: 3, qualityControl: 2 }),
        level(second, 3, 0, 0, { damaged: 3 }),
      ]);
      expect(stateOf(stock)?.product).to.include({
        quantityInStock: 13,
        reservedQuantity: 1,
        committedQuantity: 3,
        qualityControlQuantity: 2,
        damagedQuantity: 3,
      });
      expect((await store.products.findById(id))?.availableQuantity).to.equal(4);
      expect(await store.stock.list(id)).to.deep.equal([
        {
          ...level(DEFAULT_LOCATION_ID, 10, 1, 0, { committed: 3, qualityControl: 2 }),
          locationCode: DEFAULT_LOCATION_CODE,
        },
        { ...level(second, 3, 0, 0, { damaged: 3 }), locationCode: 'second' },
      ]);
      await expectLedgersToSum(store, [{ id }]);
    });

    it('writes the alert and the backorders a change sets, and keeps them when it leaves them', async () => {
      const { id } = await aStoredProduct(store, { quantityInStock: 2, backorderLimit: 5, lowStockThreshold: 3 });
      const held = await holdStored(store, id, { quantity: 4, allowBackorder: true });
      expect(held).to.include({ reservedQuantity: 2, backorderedQuantity: 2, availableQuantity: -2, version: 2 });
      expect(held.stock.lowStockAlert, 'turned low').to.equal(true);
      const kept = await adjustStored(store, id, second, 1);
      for (const product of [kept, (await store.products.findById(id))!]) {
        expect(product).to.include({ backorderedQuantity: 2, quantityInStock: 3, version: 3 });
        expect(product.stock.lowStockAlert).to.equal(true);
      }
    });

    it('appends each movement with the change’s context, and answers them with their ids, in ledger order', async () => {
      const { id } = await aStoredProduct(store, { quantityInStock: 5 });
      const locations = await store.locations.list();
      const context = aContext({
        reason: 'count',
        reservationId: 'r-1',
        requestId: 'q-1',
        actor: 'shop-a',
        traceId: TRACE,
      });
      const transfer = aTransfer({ productId: id, toLocationId: second, quantity: 2 });
      const { appended } = await saved(
        id,
        (stock) =>
          andThen(
            andThen(changeOf(stock.sendTransfer(transfer, policy)), (sent) =>
              sent.endTransfer(transfer, 'received', policy),
            ),
            (received) => received.hold({ quantity: 4 }, locations, 'priority', policy),
          ),
        context,
      );
      const movements = (await movementsOf(store, id)).slice(1);
      const row = (
        kind: StockMovement['kind'],
        locationId: number,
        [quantityDelta, reservedDelta]: [number, number],
        [quantityAfter, reservedAfter]: [number, number],
        sequence: number,
        transferId?: string,
      ) => ({
        productId: id,
        locationId,
        ...(transferId !== undefined && { transferId }),
        kind,
        quantityDelta,
        reservedDelta,
        committedDelta: 0,
        qualityControlDelta: 0,
        damagedDelta: 0,
        quantityAfter,
        reservedAfter,
        reasonCode: kind,
        reason: 'count',
        reservationId: 'r-1',
        requestId: 'q-1',
        actor: 'shop-a',
        traceId: TRACE,
        sequence,
      });
      expect(movements.map(({ id: _id, at: _at, ...rest }) => rest)).to.deep.equal([
        row('transfer-sent', DEFAULT_LOCATION_ID, [-2, 0], [3, 0], 2, transfer.id),
        row('transfer-received', second, [2, 0], [5, 0], 3, transfer.id),
        row('reserved', DEFAULT_LOCATION_ID, [0, 3], [5, 3], 4),
        row('reserved', second, [0, 1], [5, 4], 5),
      ]);
      for (const movement of movements) expect(movement.at.getTime()).to.equal(context.at.getTime());
      const ids = movements.map((movement) => movement.id);
      expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
      expect(appended).to.deep.equal(
        [
          { id: ids[0], sequence: 2, kind: 'transfer-sent', locationId: DEFAULT_LOCATION_ID, onHand: 3, reserved: 0 },
          { id: ids[1], sequence: 3, kind: 'transfer-received', locationId: second, onHand: 2, reserved: 0 },
          { id: ids[2], sequence: 4, kind: 'reserved', locationId: DEFAULT_LOCATION_ID, onHand: 3, reserved: 3 },
          { id: ids[3], sequence: 5, kind: 'reserved', locationId: second, onHand: 2, reserved: 1 },
        ].map((movement) => ({ ...movement, committed: 0, qualityControl: 0, damaged: 0, at: context.at })),
      );
    });

    it('records a fill under the reservation it fills, over the context’s, and every other movement under the context’s', async () => {
      const { id } = await aStoredProduct(store, { quantityInStock: 0, backorderLimit: 5 });
      await holdStored(store, id, { quantity: 4, allowBackorder: true });
      // Two units arrive, and the hold that waits for them takes them.
      const arrival = (stock: ProductStock) =>
        andThen(changeOf(stock.adjust(DEFAULT_LOCATION_ID, 2, policy)), (arrived) =>
          arrived.fill(
            DEFAULT_LOCATION_ID,
            [{ reservationId: 'r-waiting', quantity: arrived.product.backorderedQuantity }],
            policy,
          ),
        );
      await saved(id, arrival, aContext({ reservationId: 'r-context' }));
      await saved(id, arrival, aContext());
      // After the product's created movement (the backordered hold moved no stock).
      const movements = (await movementsOf(store, id)).slice(1);
      expect(movements.map(({ kind, reservationId }) => [kind, reservationId])).to.deep.equal([
        ['adjusted', 'r-context'],
        ['backorder-filled', 'r-waiting'],
        ['adjusted', undefined],
        ['backorder-filled', 'r-waiting'],
      ]);
      expect(await store.products.findById(id)).to.include({ reservedQuantity: 4, backorderedQuantity: 0 });
    });

    it('records the trace its provider answers when the context has none, and the context’s over it', async function () {
      if (!store.withTrace) this.skip();
      const { id } = await aStoredProduct(store, { quantityInStock: 5 });
      const provided = '0af7651916cd43dd8448eb211c80319c';
      await store.withTrace(provided, () => adjustStored(store, id, DEFAULT_LOCATION_ID, 1));
      await store.withTrace(provided, () =>
        adjustStored(store, id, DEFAULT_LOCATION_ID, 1, aContext({ traceId: TRACE })),
      );
      await adjustStored(store, id, DEFAULT_LOCATION_ID, 1);
      expect((await movementsOf(store, id)).slice(1).map(({ traceId }) => traceId)).to.deep.equal([
        provided,
        TRACE,
        undefined,
      ]);
    });

    it('keeps the largest stock exactly, summed over locations', async () => {
      const { id } = await aStoredProduct(store, { quantityInStock: STOCK_MAX - 7 });
      await adjustStored(store, id, second, 7);
      expect((await store.products.findById(id))!.quantityInStock).to.equal(STOCK_MAX);
      expect(await levelsOf(store, id)).to.deep.equal([level(DEFAULT_LOCATION_ID, STOCK_MAX - 7), level(second, 7)]);
    });

    it('refuses a change decided from a version the product has left, keeping the change saved meanwhile', async () => {
      const { id } = await aStoredProduct(store, { quantityInStock: 5 });
      const stale = changeOf((await locked(id))!.adjust(DEFAULT_LOCATION_ID, -1, policy));
      await adjustStored(store, id, DEFAULT_LOCATION_ID, 2);
      const meanwhile = await snapshotOf(id);
      expect(meanwhile.product).to.include({ quantityInStock: 7, version: 2 });
      await expect(
        inTransaction(store, async (tx) => {
          await tx.stock.lock(id);
          return tx.stock.save(stale, aContext());
        }),
      ).to.be.rejected;
      expect(await snapshotOf(id)).to.deep.equal(meanwhile);
    });

    it('refuses, in one unit of work, a second change decided from the stock the first started from: nothing at all stays', async () => {
      const { id } = await aStoredProduct(store, { quantityInStock: 5 });
      const before = await snapshotOf(id);
      let firstSaved = false;
      await expect(
        inTransaction(store, async (tx) => {
          const stock = (await tx.stock.lock(id))!;
          const first = changeOf(stock.adjust(DEFAULT_LOCATION_ID, 2, policy));
          const stale = changeOf(stock.adjust(second, 1, policy));
          await tx.stock.save(first, aContext());
          firstSaved = true;
          await tx.stock.save(stale, aContext());
        }),
      ).to.be.rejected;
      expect(firstSaved, 'the first change was saved before the stale one').to.equal(true);
      expect(await snapshotOf(id)).to.deep.equal(before);
    });

    /** Changes no verb answers, from a product with 5 at the default location: what the declared invariants refuse. */
    const broken: [string, (stock: ProductStock, second: number) => StockChange][] = [
      ['reserved above on hand', (stock) => breaking(stock, level(DEFAULT_LOCATION_ID, 5, 6))],
      ['reserved below 0', (stock) => breaking(stock, level(DEFAULT_LOCATION_ID, 5, -1))],
      ['on hand below 0, at a level it creates', (stock, at) => breaking(stock, level(at, -1))],
      ['incoming below 0', (stock) => breaking(stock, level(DEFAULT_LOCATION_ID, 5, 0, -1))],
      ['committed below 0', (stock) => breaking(stock, level(DEFAULT_LOCATION_ID, 5, 0, 0, { committed: -1 }))],
      [
        'quality control below 0',
        (stock) => breaking(stock, level(DEFAULT_LOCATION_ID, 5, 0, 0, { qualityControl: -1 })),
      ],
      ['damaged below 0', (stock) => breaking(stock, level(DEFAULT_LOCATION_ID, 5, 0, 0, { damaged: -1 }))],
      [
        'the set-aside states together one above on hand',
        (stock) =>
          breaking(stock, level(DEFAULT_LOCATION_ID, 5, 2, 0, { committed: 2, qualityControl: 1, damaged: 1 })),
      ],
      ['a level at a location that does not exist', (stock) => changeOf(stock.adjust(424242, 1, policy))],
    ];
    for (const [name, change] of broken) {
      it(`refuses, as its safety net, a change that breaks a level’s invariant, writing nothing: ${name}`, async () => {
        const { id } = await aStoredProduct(store, { quantityInStock: 5 });
        const before = await snapshotOf(id);
        await expect(
          inTransaction(store, async (tx) => tx.stock.save(change((await tx.stock.lock(id))!, second), aContext())),
        ).to.be.rejected;
        expect(await snapshotOf(id)).to.deep.equal(before);
      });
    }
  });

  describe('saveMany', () => {
    it('saves a batch as `save` saves each change', async () => {
      const a = await aStoredProduct(store, { quantityInStock: 5, lowStockThreshold: 4 });
      const b = await aStoredProduct(store, { quantityInStock: 2 });
      const context = aContext({ requestId: 'batch' });
      const changes = await inTransaction(store, async (tx) => {
        const [stockA, stockB] = await tx.stock.lockMany([b.id, a.id]);
        const decided = [
          changeOf(stockB!.adjust(second, 6, policy)),
          changeOf(stockA!.adjust(DEFAULT_LOCATION_ID, -2, policy)),
        ];
        await tx.stock.saveMany(decided, context);
        return decided;
      });
      for (const change of changes)
        expect(stateOf(await locked(change.productId))).to.deep.equal(stateOf(change.after));
      expect(changes[1]!.after.product.stock.lowStockAlert, 'a crossed its threshold').to.equal(true);
      expect(await levelsOf(store, b.id)).to.deep.equal([level(DEFAULT_LOCATION_ID, 2), level(second, 6)]);
      expect((await movementsOf(store, b.id)).at(-1)).to.include({
        kind: 'adjusted',
        locationId: second,
        quantityDelta: 6,
        requestId: 'batch',
        sequence: 2,
      });
      await expectLedgersToSum(store, [a, b]);
    });

    it('saves none of a batch when one of its changes cannot be saved', async () => {
      const a = await aStoredProduct(store, { quantityInStock: 5 });
      const b = await aStoredProduct(store, { quantityInStock: 2 });
      const before = [await snapshotOf(a.id), await snapshotOf(b.id)];
      await expect(
        inTransaction(store, async (tx) => {
          const [stockA, stockB] = await tx.stock.lockMany([a.id, b.id]);
          const good = changeOf(stockA!.adjust(DEFAULT_LOCATION_ID, 1, policy));
          await tx.stock.saveMany([good, breaking(stockB!, level(DEFAULT_LOCATION_ID, 2, 3))], aContext());
        }),
      ).to.be.rejected;
      expect([await snapshotOf(a.id), await snapshotOf(b.id)]).to.deep.equal(before);
    });
  });

  describe('under concurrency', () => {
    it('loses no concurrent adjustment and never goes below what is held, each decided under the lock', async () => {
      const { id } = await aStoredProduct(store, { quantityInStock: 50 });
      await holdStored(store, id, { quantity: 10 });
      const outcomes = await Promise.all(
        Array.from({ length: 60 }, () =>
          inTransaction(store, async (tx) => {
            const adjusted = (await tx.stock.lock(id))!.adjust(DEFAULT_LOCATION_ID, -1, policy);
            if ('status' in adjusted) return adjusted.status;
            await tx.stock.save(adjusted, aContext());
            return 'adjusted';
          }),
        ),
      );
      expect(outcomes.filter((outcome) => outcome === 'adjusted')).to.have.length(40);
      expect(outcomes.filter((outcome) => outcome === 'below-minimum')).to.have.length(20);
      expect(await levelsOf(store, id)).to.deep.equal([level(DEFAULT_LOCATION_ID, 10, 10)]);
      expect((await locked(id))!.sequence).to.equal(1 + 1 + 40);
      await expectLedgersToSum(store, [{ id }]);
    });

    it('holds exactly what two locations have under 300 concurrent holds of 1 (10 + 20 give 30)', async () => {
      const { id } = await aStoredProduct(store, { quantityInStock: 10 });
      await adjustStored(store, id, second, 20);
      const locations = await store.locations.list();
      const outcomes = await Promise.all(
        Array.from({ length: 300 }, () =>
          inTransaction(store, async (tx) => {
            const held = (await tx.stock.lock(id))!.hold({ quantity: 1 }, locations, 'priority', policy);
            if ('status' in held) return held.status;
            await tx.stock.save(held.change, aContext());
            return 'held';
          }),
        ),
      );
      expect(outcomes.filter((outcome) => outcome === 'held')).to.have.length(30);
      expect(outcomes.filter((outcome) => outcome === 'short')).to.have.length(270);
      expect(await levelsOf(store, id)).to.deep.equal([level(DEFAULT_LOCATION_ID, 10, 10), level(second, 20, 20)]);
      expect(await store.products.findById(id)).to.include({ reservedQuantity: 30, availableQuantity: 0 });
      await expectLedgersToSum(store, [{ id }]);
    });
  });
}
