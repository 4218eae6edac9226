import { AdjustStock, UpdateProduct } from '../src';
import {
  type AtOnceOutcome,
  DEFAULT_LOCATION_ID,
  DEFAULT_REASON_CODE,
  DEFAULT_STOCK_POLICY,
  InsufficientStockError,
  isRefusal,
  type MovementContext,
  Product,
  type ProductDetails,
  type ProductStock,
  STOCK_MAX,
  StockAdjustment,
  type StockChange,
  type StockPolicy,
  type StockUnitOfWork,
} from '@stock/domain';
import { expect } from 'chai';
import {
  aContext,
  adjustStored,
  aProduct,
  aStoredLocation,
  aStoredProduct,
  aTransfer,
  expectLedgersToSum,
  holdStored,
  inTransaction,
  levelsOf,
  movementsOf,
  saveDecided,
} from '@stock/domain/testing';
import type { OpenStockStore, StockStoreUnderTest } from '@stock/domain/testing';

/** Not the default (1), so that restoring at threshold + hysteresis is told apart from restoring at threshold + 1. */
const HYSTERESIS = 2;
const POLICY: StockPolicy = { lowStockHysteresis: HYSTERESIS };
const AT = new Date('2025-01-02T03:04:05.000Z');
const CONTEXT: MovementContext = { at: AT, reason: 'count', requestId: 'request-1', actor: 'clerk' };
const SCENE_TRANSFER = '00000000-0000-4000-8000-00000000005c';
/** A PUT's movement has no reason. */
const PUT_CONTEXT: MovementContext = { at: AT, requestId: 'request-1', actor: 'clerk' };

/**
 * Whether a change is one movement and nothing else: one step of one
 * movement, no crossing, the alert as it was. The most a one-statement path
 * makes.
 */
function isPlain(change: StockChange): boolean {
  const [step, ...more] = change.steps;
  return (
    step !== undefined &&
    more.length === 0 &&
    step.movements.length === 1 &&
    step.signal === undefined &&
    change.after.product.stock.lowStockAlert === change.before.product.stock.lowStockAlert
  );
}

/**
 * Whether AdjustStock's transaction saves one plain change, by the aggregate
 * itself: ProductStock.adjust answers one, no waiting backorder takes the
 * stock that arrives, and the location has a level (creating one is left to
 * the transaction).
 */
function plainAdjustment(stock: ProductStock, locationId: number, delta: number): boolean {
  const adjusted = stock.adjust(locationId, delta, POLICY);
  return (
    !isRefusal(adjusted) &&
    isPlain(adjusted) &&
    !stock.fillsOnArrival(delta) &&
    stock.levels.some((level) => level.locationId === locationId)
  );
}

/** The stock as UpdateProduct decides a PUT's replacement: its product with the PUT's details, at its next version. */
function withDetails(stock: ProductStock, details: ProductDetails): ProductStock {
  const { product } = stock;
  const kept = details.keepingSettingsOf(product).withQuantityInStock(product.quantityInStock);
  return stock.withProduct(Product.of(product.id, kept, product.version + 1, product.reservedQuantity, product.stock));
}

/**
 * Whether UpdateProduct's transaction saves the details alone, or they and one
 * plain change: the product is at the version expected, and
 * ProductStock.replace (with the PUT's threshold) answers nothing to change,
 * or one plain change.
 */
function plainReplacement(stock: ProductStock, details: ProductDetails, expectedVersion: number | undefined): boolean {
  if (expectedVersion !== undefined && expectedVersion !== stock.product.version) return false;
  const replaced = withDetails(stock, details).replace(details.quantityInStock, POLICY);
  return replaced === undefined || (!isRefusal(replaced) && isPlain(replaced));
}

/** What two products made alike must agree on: everything but the id. */
function state(product: Product) {
  return {
    name: product.name,
    description: product.description,
    price: product.price.toString(),
    quantityInStock: product.quantityInStock,
    reservedQuantity: product.reservedQuantity,
    committedQuantity: product.committedQuantity,
    qualityControlQuantity: product.qualityControlQuantity,
    damagedQuantity: product.damagedQuantity,
    availableQuantity: product.availableQuantity,
    version: product.version,
    backorderLimit: product.backorderLimit,
    backorderedQuantity: product.backorderedQuantity,
    lowStockThreshold: product.lowStockThreshold,
    lowStockAlert: product.stock.lowStockAlert,
  };
}

/** A product's ledger as it must agree between two products made alike: everything but ids and times. */
async function ledgerOf(store: StockStoreUnderTest, productId: number) {
  return (await movementsOf(store, productId)).map(({ id: _, productId: __, at: ___, ...movement }) => movement);
}

/** A product, its levels and its ledger: what a change that answers needs-plan must leave as they were. */
async function snapshotOf(store: StockStoreUnderTest, productId: number) {
  return {
    product: state((await store.products.findById(productId))!),
    levels: await levelsOf(store, productId),
    ledger: await ledgerOf(store, productId),
  };
}

/** Where a product starts, in the domain's terms: each made by the aggregate's verbs, in this order. */
interface Scene {
  /** Units added at the second location. */
  readonly elsewhere?: number;
  /** Of those, units held there. */
  readonly heldElsewhere?: number;
  /** Units sent from the default location to the second, still on their way. */
  readonly incoming?: number;
  /** Units held at the default location. */
  readonly held?: number;
  /** Units backordered by a hold at the second location, beyond all it has. */
  readonly backordered?: number;
  /** The product turned low by a change below its threshold (one unit in and out again). */
  readonly alerted?: boolean;
  /** Then its threshold turned off (0), the alert still set. */
  readonly thresholdOff?: boolean;
  /** Units at the default location set aside in the states beside reserved: paid for, in quality control, damaged. */
  readonly setAside?: { readonly committed: number; readonly qualityControl: number; readonly damaged: number };
}

/**
 * What a store's one-statement changes promise (ProductStockRepository
 * adjustAtOnce and replaceAtOnce), held to the ProductStock aggregate at the
 * edges of every rule they render: each answers needs-plan, changing nothing,
 * exactly when the aggregate would decide more than one plain change (or
 * refuse); when it changes, the product, its levels and its ledger are what
 * the transactional path (the use case, deciding through the aggregate) leaves
 * on a twin product. Run only on a store that has them (changesAtOnce).
 */
export function changesAtOnceContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  let second: number;
  /** The use cases on the transactional path alone: the store's unit of work, without its one statement. */
  let transactional: StockUnitOfWork;

  before(async function () {
    store = await open(this, Date.now);
    // Run only on a store that has them (PostgreSQL's); one without says so in a test of its own.
    if (!store.unitOfWork.changesAtOnce)
      throw new Error('This store makes no change at once: do not run this suite on it.');
    transactional = { run: (work, options) => store.unitOfWork.run(work, options) };
  });
  beforeEach(async () => {
    await store.reset();
    second = (await aStoredLocation(store, { code: 'second', priority: 1 })).id;
  });
  after(async () => store?.close());

  const locked = (id: number) => inTransaction(store, async (tx) => (await tx.stock.lock(id))!);

  const adjustAtOnce = (id: number, locationId: number, delta: number): Promise<AtOnceOutcome> =>
    store.unitOfWork.run((tx) => tx.stock.adjustAtOnce!(id, locationId, delta, DEFAULT_REASON_CODE, CONTEXT, POLICY), {
      singleCall: true,
    });

  const replaceAtOnce = (id: number, details: ProductDetails, expectedVersion?: number): Promise<AtOnceOutcome> =>
    store.unitOfWork.run((tx) => tx.stock.replaceAtOnce!(id, details, expectedVersion, PUT_CONTEXT, POLICY), {
      singleCall: true,
    });

  /** A product made as `scene` says, named alike so that twins agree. */
  async function made(details: Parameters<typeof aProduct>[0], scene: Scene = {}): Promise<number> {
    const twin = { name: 'Twin', description: 'Made alike' };
    const { id } = await aStoredProduct(store, { ...twin, ...details });
    if (scene.elsewhere) await adjustStored(store, id, second, scene.elsewhere);
    if (scene.heldElsewhere) await holdStored(store, id, { quantity: scene.heldElsewhere, locationId: second });
    if (scene.incoming) {
      // One id for every twin's transfer: their ledgers name it.
      const transfer = aTransfer({ id: SCENE_TRANSFER, productId: id, toLocationId: second, quantity: scene.incoming });
      await saveDecided(store, id, (stock) => stock.sendTransfer(transfer, DEFAULT_STOCK_POLICY));
    }
    if (scene.held) await holdStored(store, id, { quantity: scene.held, locationId: DEFAULT_LOCATION_ID });
    if (scene.setAside) {
      const { committed, qualityControl, damaged } = scene.setAside;
      const here = { locationId: DEFAULT_LOCATION_ID };
      const paid = { allocations: [{ ...here, quantity: committed }], backordered: 0 };
      await holdStored(store, id, { ...here, quantity: committed });
      await saveDecided(store, id, (stock) => stock.settle(paid, 'committed', DEFAULT_STOCK_POLICY));
      const states = { from: 'available', to: 'quality-control' } as const;
      await saveDecided(store, id, (stock) =>
        stock.changeState(DEFAULT_LOCATION_ID, qualityControl, states, DEFAULT_STOCK_POLICY),
      );
      await saveDecided(store, id, (stock) =>
        stock.adjust(DEFAULT_LOCATION_ID, damaged, DEFAULT_STOCK_POLICY, { state: 'damaged' }),
      );
    }
    if (scene.backordered) {
      const quantity = (scene.elsewhere ?? 0) - (scene.heldElsewhere ?? 0) + scene.backordered;
      await holdStored(store, id, { quantity, locationId: second, allowBackorder: true });
    }
    if (scene.alerted) {
      await adjustStored(store, id, DEFAULT_LOCATION_ID, 1);
      await adjustStored(store, id, DEFAULT_LOCATION_ID, -1);
    }
    if (scene.thresholdOff)
      await inTransaction(store, (tx) =>
        tx.products.updateDetails(id, aProduct({ ...twin, lowStockThreshold: 0 }), undefined),
      );
    const { product } = await locked(id);
    expect(product.backorderedQuantity, 'backordered').to.equal(scene.backordered ?? 0);
    expect(product.stock.lowStockAlert, 'alerted').to.equal(scene.alerted ?? false);
    return id;
  }

  /** Two products made alike by `make`. */
  async function twins(make: () => Promise<number>): Promise<[number, number]> {
    return [await make(), await make()];
  }

  /**
   * The edge of one adjustment: adjustAtOnce on one twin answers needs-plan
   * (leaving it as it was) exactly when the aggregate's adjustment is not
   * plain; when it changes, the other twin adjusted by the transactional path
   * agrees, and neither path wrote an event.
   */
  async function expectAdjustmentAgrees(
    make: () => Promise<number>,
    delta: number,
    plain: boolean,
    locationId = DEFAULT_LOCATION_ID,
  ): Promise<void> {
    const [fast, slow] = await twins(make);
    expect(plainAdjustment(await locked(fast), locationId, delta), 'the aggregate’s adjustment is plain').to.equal(
      plain,
    );
    const before = await snapshotOf(store, fast);
    const outcome = await adjustAtOnce(fast, locationId, delta);
    if (!plain) {
      expect(outcome).to.deep.equal({ status: 'needs-plan' });
      expect(await snapshotOf(store, fast)).to.deep.equal(before);
      return;
    }
    if (outcome.status !== 'changed') expect.fail('a plain adjustment made at once');
    const events = await store.outbox.countUnpublished();
    const slowly = await new AdjustStock(transactional, () => AT, POLICY).execute(
      slow,
      StockAdjustment.create({ delta, reason: CONTEXT.reason!, locationId }),
      { requestId: CONTEXT.requestId, caller: CONTEXT.actor },
    );
    expect(await store.outbox.countUnpublished(), 'events of the transactional path').to.equal(events);
    expect(state(outcome.product)).to.deep.equal(state(slowly.value));
    expect(state((await store.products.findById(fast))!)).to.deep.equal(state(slowly.value));
    expect(await levelsOf(store, fast)).to.deep.equal(await levelsOf(store, slow));
    expect(await ledgerOf(store, fast)).to.deep.equal(await ledgerOf(store, slow));
    await expectLedgersToSum(store, [{ id: fast }]);
  }

  /** The edge of one PUT, as expectAdjustmentAgrees. */
  async function expectReplacementAgrees(
    make: () => Promise<number>,
    details: ProductDetails,
    plain: boolean,
    expectedVersion?: (version: number) => number,
  ): Promise<void> {
    const [fast, slow] = await twins(make);
    const stock = await locked(fast);
    const expected = expectedVersion?.(stock.product.version);
    expect(plainReplacement(stock, details, expected), 'the aggregate’s replacement is plain').to.equal(plain);
    const before = await snapshotOf(store, fast);
    const outcome = await replaceAtOnce(fast, details, expected);
    if (!plain) {
      expect(outcome).to.deep.equal({ status: 'needs-plan' });
      expect(await snapshotOf(store, fast)).to.deep.equal(before);
      return;
    }
    if (outcome.status !== 'changed') expect.fail('a plain PUT made at once');
    const events = await store.outbox.countUnpublished();
    const slowly = await new UpdateProduct(transactional, () => AT, POLICY).execute(slow, details, {
      ...(expected !== undefined && { expectedVersion: expected }),
      requestId: PUT_CONTEXT.requestId,
      caller: PUT_CONTEXT.actor,
    });
    expect(await store.outbox.countUnpublished(), 'events of the transactional path').to.equal(events);
    expect(state(outcome.product)).to.deep.equal(state(slowly));
    expect(state((await store.products.findById(fast))!)).to.deep.equal(state(slowly));
    expect(await levelsOf(store, fast)).to.deep.equal(await levelsOf(store, slow));
    expect(await ledgerOf(store, fast)).to.deep.equal(await ledgerOf(store, slow));
    await expectLedgersToSum(store, [{ id: fast }]);
  }

  describe('an adjustment at once', () => {
    it('takes a level down to exactly what is held there, and leaves one below to the transaction', async () => {
      const make = () => made({ quantityInStock: 10 }, { held: 4 });
      await expectAdjustmentAgrees(make, -6, true);
      await expectAdjustmentAgrees(make, -7, false);
    });

    it('brings the product to exactly STOCK_MAX, and leaves one beyond to the transaction', async () => {
      const make = () => made({ quantityInStock: STOCK_MAX - 2 });
      await expectAdjustmentAgrees(make, 2, true);
      await expectAdjustmentAgrees(make, 3, false);
    });

    it('takes stock out while backorders wait, and leaves stock that arrives for them to the transaction', async () => {
      const make = () => made({ quantityInStock: 10, backorderLimit: 5 }, { elsewhere: 3, backordered: 2 });
      await expectAdjustmentAgrees(make, -1, true);
      await expectAdjustmentAgrees(make, 1, false);
    });

    it('leaves an adjustment of 0 while backorders wait, which moves no stock, to the transaction', async () => {
      const make = () => made({ quantityInStock: 10, backorderLimit: 5 }, { elsewhere: 3, backordered: 2 });
      await expectAdjustmentAgrees(make, 0, false);
    });

    it('stays at the threshold without an alert, and leaves the crossing below it to the transaction', async () => {
      const make = () => made({ quantityInStock: 10, lowStockThreshold: 5 });
      await expectAdjustmentAgrees(make, -5, true);
      await expectAdjustmentAgrees(make, -6, false);
    });

    it('keeps an alerted product low one below threshold + hysteresis, and leaves restoring it to the transaction', async () => {
      const make = () => made({ quantityInStock: 3, lowStockThreshold: 5 }, { alerted: true });
      await expectAdjustmentAgrees(make, 5 + HYSTERESIS - 1 - 3, true);
      await expectAdjustmentAgrees(make, 5 + HYSTERESIS - 3, false);
    });

    it('leaves quietly clearing the alert of a product whose threshold was turned off to the transaction', async () => {
      const make = () => made({ quantityInStock: 3, lowStockThreshold: 5 }, { alerted: true, thresholdOff: true });
      await expectAdjustmentAgrees(make, -1, false);
      await expectAdjustmentAgrees(make, 1, false);
    });

    it('adjusts at another location that has a level, and leaves a location without one to the transaction', async () => {
      await expectAdjustmentAgrees(() => made({ quantityInStock: 1 }, { elsewhere: 3 }), -3, true, second);
      await expectAdjustmentAgrees(() => made({ quantityInStock: 1 }), 3, false, second);
    });

    it('takes out exactly the units no state sets aside (held, committed, in quality control, damaged), and leaves one more to the transaction', async () => {
      // 10 + 1 damaged on hand: 1 held, 2 committed, 3 in quality control, 1 damaged, so 4 available.
      const setAside = { committed: 2, qualityControl: 3, damaged: 1 };
      const make = () => made({ quantityInStock: 10 }, { held: 1, setAside });
      await expectAdjustmentAgrees(make, -4, true);
      await expectAdjustmentAgrees(make, -5, false);
    });

    it('answers needs-plan for a product that does not exist', async () => {
      expect(await adjustAtOnce(424242, DEFAULT_LOCATION_ID, 1)).to.deep.equal({ status: 'needs-plan' });
    });
  });

  describe('a PUT at once', () => {
    const put = (quantityInStock: number, settings: { lowStockThreshold?: number } = {}) =>
      aProduct({ name: 'Renamed', description: 'Made alike', quantityInStock, ...settings });

    it('replaces the details at the version expected, and leaves another version to the transaction', async () => {
      const make = () => made({ quantityInStock: 5 });
      await expectReplacementAgrees(make, put(6), true, (version) => version);
      await expectReplacementAgrees(make, put(6), false, (version) => version - 1);
      await expectReplacementAgrees(make, put(5), false, (version) => version + 1);
    });

    it('sets the stock to exactly what the default location holds, and leaves one below to the transaction', async () => {
      const make = () => made({ quantityInStock: 10 }, { held: 4 });
      await expectReplacementAgrees(make, put(4), true);
      await expectReplacementAgrees(make, put(3), false);
    });

    const elsewhere: [string, Scene][] = [
      ['stock', { elsewhere: 3 }],
      ['holds', { elsewhere: 3, heldElsewhere: 3 }],
      ['incoming units', { incoming: 2 }],
    ];
    for (const [what, scene] of elsewhere)
      it(`replaces only the details of a product with ${what} at another location, leaving its stock to the transaction`, async () => {
        const make = () => made({ quantityInStock: 5 }, scene);
        const stock = (await locked(await make())).product.quantityInStock;
        await expectReplacementAgrees(make, put(stock), true);
        await expectReplacementAgrees(make, put(stock + 1), false);
      });

    it('judges a crossing with the new threshold, and a PUT that keeps the stock crosses nothing', async () => {
      const make = () => made({ quantityInStock: 10, lowStockThreshold: 5 });
      await expectReplacementAgrees(make, put(10, { lowStockThreshold: 20 }), true);
      await expectReplacementAgrees(make, put(9, { lowStockThreshold: 9 }), true);
      await expectReplacementAgrees(make, put(8, { lowStockThreshold: 9 }), false);
    });

    it('keeps an alerted product low one below threshold + hysteresis, and leaves restoring it to the transaction', async () => {
      const make = () => made({ quantityInStock: 3, lowStockThreshold: 5 }, { alerted: true });
      await expectReplacementAgrees(make, put(5 + HYSTERESIS - 1), true);
      await expectReplacementAgrees(make, put(5 + HYSTERESIS), false);
    });

    it('leaves quietly clearing an alert by turning the threshold off to the transaction, unless the stock stays', async () => {
      const make = () => made({ quantityInStock: 3, lowStockThreshold: 5 }, { alerted: true });
      await expectReplacementAgrees(make, put(2, { lowStockThreshold: 0 }), false);
      await expectReplacementAgrees(make, put(3, { lowStockThreshold: 0 }), true);
    });

    it('answers needs-plan for a product that does not exist', async () => {
      expect(await replaceAtOnce(424242, put(1))).to.deep.equal({ status: 'needs-plan' });
    });
  });

  it('never oversells while adjustments at once race holds, and the ledger sums per location', async function () {
    this.timeout(60_000);
    const { id } = await aStoredProduct(store, { quantityInStock: 40 });
    await adjustStored(store, id, second, 20);
    const locations = await store.locations.list();
    const adjust = new AdjustStock(store.unitOfWork, () => new Date(), POLICY);
    const takeOne = () =>
      adjust.execute(id, StockAdjustment.create({ delta: -1 })).then(
        () => true,
        (error: unknown) => {
          if (error instanceof InsufficientStockError) return false;
          throw error;
        },
      );
    const holdOne = () =>
      inTransaction(store, async (tx) => {
        const held = (await tx.stock.lock(id))!.hold({ quantity: 1 }, locations, 'priority', POLICY);
        if (isRefusal(held)) return false;
        await tx.stock.save(held.change, aContext());
        return true;
      });
    const outcomes = await Promise.all(
      Array.from({ length: 120 }, (_, index) =>
        (index % 2 === 0 ? takeOne() : holdOne()).then((done) => [index, done] as const),
      ),
    );
    const taken = outcomes.filter(([index, done]) => done && index % 2 === 0).length;
    const held = outcomes.filter(([index, done]) => done && index % 2 === 1).length;
    const stock = await locked(id);
    const here = stock.levelAt(DEFAULT_LOCATION_ID);
    expect(here.onHand).to.equal(40 - taken);
    expect(here.reserved + stock.levelAt(second).reserved).to.equal(held);
    for (const level of stock.levels) expect(level.reserved).to.be.within(0, level.onHand);
    expect(stock.product).to.include({ quantityInStock: 60 - taken, reservedQuantity: held });
    await expectLedgersToSum(store, [{ id }]);
  });
}
