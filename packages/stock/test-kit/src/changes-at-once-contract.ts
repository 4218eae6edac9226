import { AdjustStock, UpdateProduct } from '@stock/application';
import {
  type AtOnceOutcome,
  change,
  DEFAULT_LOCATION_ID,
  holdChanges,
  InsufficientStockError,
  levelAt,
  lowStockCrossing,
  type MovementContext,
  planAdjustment,
  planHold,
  planStockReplacement,
  type Product,
  type ProductDetails,
  type ProductStock,
  STOCK_MAX,
  StockAdjustment,
  type StockUnitOfWork,
} from '@stock/domain';
import { expect } from 'chai';
import { aProduct } from './builders';
import { expectLedgersToSum } from './ledger';
import { applyChanges, aStoredLocation, aStoredProduct, inTransaction, levelsOf, movementsOf } from './stock-fixtures';
import type { OpenStockStore, StockStoreUnderTest } from './stock-store';

/** Not the default (1), so that restoring at threshold + hysteresis is told apart from restoring at threshold + 1. */
const HYSTERESIS = 2;
const AT = new Date('2025-01-02T03:04:05.000Z');
const CONTEXT: MovementContext = { at: AT, reason: 'count', requestId: 'request-1', actor: 'clerk' };
/** A PUT's movement has no reason. */
const PUT_CONTEXT: MovementContext = { at: AT, requestId: 'request-1', actor: 'clerk' };

/**
 * Whether the transactional path's plan for this adjustment is one plain
 * change and nothing else, by the domain's rules: what adjustAtOnce may make.
 * The location must have a level (creating one is left to the plan).
 */
function plainAdjustment(stock: ProductStock, locationId: number, delta: number): boolean {
  if (!stock.levels.some((level) => level.locationId === locationId)) return false;
  if ('status' in planAdjustment(stock, locationId, delta)) return false;
  if (delta > 0 && stock.product.backorderedQuantity > 0) return false;
  return steady(stock.product, stock.product.availableQuantity + delta, stock.product.lowStockThreshold);
}

/** Whether the PUT's transactional path is the details alone, or they and one plain change at the default location. */
function plainReplacement(stock: ProductStock, details: ProductDetails, expectedVersion: number | undefined): boolean {
  if (expectedVersion !== undefined && expectedVersion !== stock.product.version) return false;
  const replacement = planStockReplacement(stock, details.quantityInStock);
  if (replacement === undefined) return true;
  if ('status' in replacement || !stock.levels.some((level) => level.locationId === DEFAULT_LOCATION_ID)) return false;
  const threshold = details.lowStockThreshold ?? stock.product.lowStockThreshold;
  return steady(stock.product, stock.product.availableQuantity + replacement.onHand, threshold);
}

/** lowStockCrossing keeps the alert as it is (and so writes no event). */
function steady(product: Product, after: number, lowStockThreshold: number): boolean {
  const crossing = lowStockCrossing({ lowStockThreshold, stock: product.stock }, after, HYSTERESIS);
  return crossing.event === undefined && crossing.alert === product.stock.lowStockAlert;
}

/** What two products made alike must agree on: everything but the id. */
function state(product: Product) {
  return {
    name: product.name,
    description: product.description,
    price: product.price.toString(),
    quantityInStock: product.quantityInStock,
    reservedQuantity: product.reservedQuantity,
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

/** A product's levels, version and ledger: what a change that answers needs-plan must leave as they were. */
async function snapshotOf(store: StockStoreUnderTest, productId: number) {
  return {
    product: (await store.products.findById(productId))!.version,
    levels: await levelsOf(store, productId),
    ledger: await ledgerOf(store, productId),
  };
}

/**
 * What a store's one-statement changes promise (StockLevelRepository
 * adjustAtOnce and replaceAtOnce), against the transactional path at the edges
 * of every condition: each answers needs-plan, changing nothing, exactly when
 * the transactional path's plan is not one plain change; when it changes, the
 * product, its levels and its ledger are what the transactional path (the use
 * case, run without the one statement) leaves on a twin product. Run only on
 * a store that has them (changesAtOnce).
 */
export function changesAtOnceContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  let second: number;
  /** The use cases on the transactional path alone: the store's unit of work, without its one statement. */
  let transactional: StockUnitOfWork;
  const settings = { lowStockHysteresis: HYSTERESIS };

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

  /** Two products made alike by `make` (which answers the product's id). */
  async function twins(make: () => Promise<number>): Promise<[number, number]> {
    return [await make(), await make()];
  }

  const locked = (id: number) => inTransaction(store, async (tx) => (await tx.levels.lock(id))!);

  const adjustAtOnce = (id: number, locationId: number, delta: number): Promise<AtOnceOutcome> =>
    store.unitOfWork.run((tx) => tx.levels.adjustAtOnce!(id, locationId, delta, CONTEXT, HYSTERESIS), {
      singleCall: true,
    });

  const replaceAtOnce = (id: number, details: ProductDetails, expectedVersion?: number): Promise<AtOnceOutcome> =>
    store.unitOfWork.run((tx) => tx.levels.replaceAtOnce!(id, details, expectedVersion, PUT_CONTEXT, HYSTERESIS), {
      singleCall: true,
    });

  /** Holds, backorders and the alert a product starts from, in the domain's terms. */
  async function made(
    details: Parameters<typeof aProduct>[0],
    then: { held?: number; elsewhere?: number; backordered?: number; alerted?: boolean } = {},
  ): Promise<number> {
    const { id } = await aStoredProduct(store, { name: 'Twin', description: 'Made alike', ...details });
    if (then.elsewhere) await applyChanges(store, id, [change('adjusted', second, { onHand: then.elsewhere })]);
    if (then.held) await applyChanges(store, id, [change('reserved', DEFAULT_LOCATION_ID, { reserved: then.held })]);
    if (then.backordered || then.alerted)
      await applyChanges(store, id, [], {
        ...(then.backordered && { backordered: then.backordered }),
        ...(then.alerted && { lowStockAlert: true }),
      });
    return id;
  }

  /**
   * The edge of one adjustment: adjustAtOnce on one twin answers needs-plan
   * (leaving it as it was) exactly when the plan is not plain; when it
   * changes, the other twin adjusted by the transactional path agrees.
   */
  async function expectAdjustmentAgrees(
    make: () => Promise<number>,
    delta: number,
    plain: boolean,
    locationId = DEFAULT_LOCATION_ID,
  ): Promise<void> {
    const [fast, slow] = await twins(make);
    expect(plainAdjustment(await locked(fast), locationId, delta), 'the domain’s plan is plain').to.equal(plain);
    const before = await snapshotOf(store, fast);
    const outcome = await adjustAtOnce(fast, locationId, delta);
    if (!plain) {
      expect(outcome).to.deep.equal({ status: 'needs-plan' });
      expect(await snapshotOf(store, fast)).to.deep.equal(before);
      return;
    }
    expect(outcome.status).to.equal('changed');
    const events = await store.outbox.countUnpublished();
    const slowly = await new AdjustStock(transactional, () => AT, settings).execute(
      slow,
      StockAdjustment.create({ delta, reason: CONTEXT.reason!, locationId }),
      { requestId: CONTEXT.requestId, caller: CONTEXT.actor },
    );
    expect(await store.outbox.countUnpublished(), 'events of the transactional path').to.equal(events);
    const changed = (outcome as { product: Product }).product;
    expect(state(changed)).to.deep.equal(state(slowly.value));
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
    expect(plainReplacement(stock, details, expected), 'the domain’s plan is plain').to.equal(plain);
    const before = await snapshotOf(store, fast);
    const outcome = await replaceAtOnce(fast, details, expected);
    if (!plain) {
      expect(outcome).to.deep.equal({ status: 'needs-plan' });
      expect(await snapshotOf(store, fast)).to.deep.equal(before);
      return;
    }
    expect(outcome.status).to.equal('changed');
    const events = await store.outbox.countUnpublished();
    const slowly = await new UpdateProduct(transactional, () => AT, settings).execute(slow, details, {
      ...(expected !== undefined && { expectedVersion: expected }),
      requestId: CONTEXT.requestId,
      caller: CONTEXT.actor,
    });
    expect(await store.outbox.countUnpublished(), 'events of the transactional path').to.equal(events);
    expect(state((outcome as { product: Product }).product)).to.deep.equal(state(slowly));
    expect(await levelsOf(store, fast)).to.deep.equal(await levelsOf(store, slow));
    expect(await ledgerOf(store, fast)).to.deep.equal(await ledgerOf(store, slow));
    await expectLedgersToSum(store, [{ id: fast }]);
  }

  describe('an adjustment at once', () => {
    it('takes a level down to exactly what is held there, and not one below', async () => {
      const make = () => made({ quantityInStock: 10 }, { held: 4 });
      await expectAdjustmentAgrees(make, -6, true);
      await expectAdjustmentAgrees(make, -7, false);
    });

    it('stays at the threshold without an alert, and leaves the crossing below it to the plan', async () => {
      const make = () => made({ quantityInStock: 10, lowStockThreshold: 5 });
      await expectAdjustmentAgrees(make, -5, true);
      await expectAdjustmentAgrees(make, -6, false);
    });

    it('keeps an alerted product low one below threshold + hysteresis, and leaves restoring it to the plan', async () => {
      const make = () => made({ quantityInStock: 3, lowStockThreshold: 5 }, { alerted: true });
      await expectAdjustmentAgrees(make, 5 + HYSTERESIS - 1 - 3, true);
      await expectAdjustmentAgrees(make, 5 + HYSTERESIS - 3, false);
    });

    it('leaves quietly clearing an alert whose threshold was turned off to the plan', async () => {
      await expectAdjustmentAgrees(() => made({ quantityInStock: 3 }, { alerted: true }), -1, false);
    });

    it('takes stock out while backorders wait, and leaves stock that arrives for them to the plan', async () => {
      const make = () => made({ quantityInStock: 10, backorderLimit: 5 }, { backordered: 2 });
      await expectAdjustmentAgrees(make, -1, true);
      await expectAdjustmentAgrees(make, 1, false);
    });

    it('brings the product to exactly STOCK_MAX, and leaves one beyond to the plan', async () => {
      const make = () => made({ quantityInStock: STOCK_MAX - 2 });
      await expectAdjustmentAgrees(make, 2, true);
      await expectAdjustmentAgrees(make, 3, false);
    });

    it('adjusts at another location that has a level, and leaves a location without one to the plan', async () => {
      await expectAdjustmentAgrees(() => made({ quantityInStock: 1 }, { elsewhere: 3 }), -3, true, second);
      await expectAdjustmentAgrees(() => made({ quantityInStock: 1 }), 3, false, second);
    });

    it('answers needs-plan for a product that does not exist', async () => {
      expect(await adjustAtOnce(424242, DEFAULT_LOCATION_ID, 1)).to.deep.equal({ status: 'needs-plan' });
    });
  });

  describe('a PUT at once', () => {
    const put = (quantityInStock: number, settings: { lowStockThreshold?: number } = {}) =>
      aProduct({ name: 'Renamed', description: 'Made alike', quantityInStock, ...settings });

    it('replaces the details of a product with stock elsewhere, and leaves changing its stock to the plan', async () => {
      const make = () => made({ quantityInStock: 5 }, { elsewhere: 3 });
      await expectReplacementAgrees(make, put(8), true);
      await expectReplacementAgrees(make, put(9), false);
    });

    it('replaces at the version expected, and leaves another version to the plan', async () => {
      const make = () => made({ quantityInStock: 5 });
      await expectReplacementAgrees(make, put(6), true, (version) => version);
      await expectReplacementAgrees(make, put(6), false, (version) => version - 1);
    });

    it('sets the stock to exactly what the default location holds, and leaves one below to the plan', async () => {
      const make = () => made({ quantityInStock: 10 }, { held: 4 });
      await expectReplacementAgrees(make, put(4), true);
      await expectReplacementAgrees(make, put(3), false);
    });

    it('judges a crossing with the new threshold, and a PUT that keeps the stock crosses nothing', async () => {
      const make = () => made({ quantityInStock: 10, lowStockThreshold: 5 });
      await expectReplacementAgrees(make, put(10, { lowStockThreshold: 20 }), true);
      await expectReplacementAgrees(make, put(9, { lowStockThreshold: 9 }), true);
      await expectReplacementAgrees(make, put(8, { lowStockThreshold: 9 }), false);
    });

    it('answers needs-plan for a product that does not exist', async () => {
      expect(await replaceAtOnce(424242, put(1))).to.deep.equal({ status: 'needs-plan' });
    });
  });

  it('never oversells while adjustments at once race holds, and the ledger sums per location', async function () {
    this.timeout(60_000);
    const { id } = await aStoredProduct(store, { quantityInStock: 40 });
    await applyChanges(store, id, [change('adjusted', second, { onHand: 20 })]);
    const locations = await store.locations.list();
    const adjust = new AdjustStock(store.unitOfWork, () => new Date(), settings);
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
        const stock = (await tx.levels.lock(id))!;
        const plan = planHold(stock, locations, { quantity: 1 }, 'priority');
        if ('status' in plan) return false;
        await tx.levels.apply(id, holdChanges(plan), {}, CONTEXT);
        return true;
      });
    const outcomes = await Promise.all(
      Array.from({ length: 120 }, (_, index) =>
        (index % 2 === 0 ? takeOne() : holdOne()).then((done) => [index, done]),
      ),
    );
    const taken = outcomes.filter(([index, done]) => done && Number(index) % 2 === 0).length;
    const held = outcomes.filter(([index, done]) => done && Number(index) % 2 === 1).length;
    const stock = await locked(id);
    const here = levelAt(stock, DEFAULT_LOCATION_ID);
    expect(here.onHand).to.equal(40 - taken);
    expect(here.reserved + levelAt(stock, second).reserved).to.equal(held);
    for (const level of stock.levels) expect(level.reserved).to.be.within(0, level.onHand);
    expect(stock.product).to.include({ quantityInStock: 60 - taken, reservedQuantity: held });
    await expectLedgersToSum(store, [{ id }]);
  });
}
