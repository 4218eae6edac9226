import {
  aContext,
  adjustStored,
  aStoredLocation,
  aStoredProduct,
  changeOf,
  CONTRACT_TTL_MS,
  expectLedgersToSum,
  levelsOf,
  type StockStoreUnderTest,
} from '@stock/domain/testing';
import { UnavailableError } from '@platform/kernel';
import type { Database } from '@platform/persistence';
import { scratchUrl } from '@platform/test-kit';
import {
  DEFAULT_LOCATION_ID,
  DEFAULT_STOCK_POLICY,
  isRefusal,
  type Location,
  type Product,
  type ProductStock,
  type StockTransaction,
} from '@stock/domain';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { openStockDatabase } from '../src';
import { sqlStockStore } from './scratch-stores';

chai.use(chaiAsPromised);
const { expect } = chai;

/**
 * On PostgreSQL, transactions that lock the same rows in opposite orders
 * deadlock: the server aborts one of them (40P01) after deadlock_timeout.
 * Every change to a product's stock locks the product first
 * (ProductStockRepository.lock), and a transaction that changes several locks
 * them in product id order (one by one in id order, as reservations and
 * sweeps do, or lockMany, which sorts them); a transaction that loses a
 * conflict anyway runs again, and answers UnavailableError only when it keeps
 * losing.
 */
describe('Lock order and conflicts on PostgreSQL', function () {
  this.timeout(120_000);
  let database: Database;
  let cleanUp: () => Promise<void>;

  /** The store, with a unit of work that runs each transaction `attempts` times at most. */
  const storeOf = (attempts?: number): StockStoreUnderTest => ({
    ...sqlStockStore(database, {
      idempotencyTtlMs: CONTRACT_TTL_MS,
      ...(attempts !== undefined && { conflictRetry: { attempts } }),
    }),
    reset: async () => {},
    close: async () => {},
  });

  before(async function () {
    const scratch = await scratchUrl('postgresql', this, 'stock');
    cleanUp = scratch.cleanUp;
    database = await openStockDatabase(scratch.url, { createDatabase: true, poolSize: 24 });
    await database.migrate();
  });
  after(async () => {
    await database?.close();
    await cleanUp?.();
  });

  /** How a transaction of several products takes their locks. */
  type Locking = 'one by one in id order' | 'lockMany, named in any order';

  const lockAll = async (tx: StockTransaction, ids: readonly number[], locking: Locking) => {
    if (locking === 'lockMany, named in any order') return tx.stock.lockMany(ids);
    const locked: ProductStock[] = [];
    for (const id of [...ids].sort((a, b) => a - b)) locked.push((await tx.stock.lock(id))!);
    return locked;
  };

  /** A reservation: locks the products, then holds one unit of each (ProductStock.hold). */
  const holdEach = async (tx: StockTransaction, ids: readonly number[], locking: Locking, locations: Location[]) => {
    for (const stock of await lockAll(tx, ids, locking)) {
      const held = stock.hold({ quantity: 1 }, locations, 'priority', DEFAULT_STOCK_POLICY);
      if (isRefusal(held)) throw new Error(`Product ${stock.product.id} refused a hold of 1: ${held.status}`);
      await tx.stock.save(held.change, aContext());
    }
  };

  /** A sweep: locks the products, then expires one unit each holds where it is held (ProductStock.settle). */
  const expireEach = async (tx: StockTransaction, ids: readonly number[], locking: Locking) => {
    for (const stock of await lockAll(tx, ids, locking)) {
      const at = stock.levels.find((level) => level.reserved > 0)!;
      const hold = { allocations: [{ locationId: at.locationId, quantity: 1 }], backordered: 0 };
      await tx.stock.save(changeOf(stock.settle(hold, 'expired', DEFAULT_STOCK_POLICY)), aContext());
    }
  };

  it('never deadlocks when reservations and sweeps lock several products in id order, whatever order they name them in', async () => {
    // One attempt each: a deadlock is not run again here, it fails the test.
    const store = storeOf(1);
    const products: Product[] = [];
    for (let i = 0; i < 4; i++) products.push(await aStoredProduct(store, { quantityInStock: 100_000 }));
    const locations = await store.locations.list();
    const ids = products.map((p) => p.id);
    const shuffled = (n: number) => [...ids].sort((a, b) => ((a * 7919 + n) % 13) - ((b * 7919 + n) % 13));
    const named = (n: number) => shuffled(n).slice(0, 2 + (n % 3));
    const locking = (n: number): Locking => (n % 2 === 0 ? 'one by one in id order' : 'lockMany, named in any order');
    const units = (count: number, from = 0) =>
      Array.from({ length: count }, (_, n) => named(from + n).length).reduce((sum, length) => sum + length, 0);
    await Promise.all(
      Array.from({ length: 120 }, (_, n) =>
        store.unitOfWork.run((tx) => holdEach(tx, named(n), locking(n), locations)),
      ),
    );
    // Then sweeps expire holds while more reservations take new ones, on the same products at once. Sweep n names the
    // products reservation n held in the first round, so it finds a unit to expire whatever ran before it.
    await Promise.all(
      Array.from({ length: 60 }, (_, n) => [
        store.unitOfWork.run((tx) => expireEach(tx, named(n), locking(n + 1))),
        store.unitOfWork.run((tx) => holdEach(tx, named(120 + n), locking(n), locations)),
      ]).flat(),
    );
    const held = (await Promise.all(ids.map((id) => store.products.findById(id)))).reduce(
      (sum, product) => sum + product!.reservedQuantity,
      0,
    );
    expect(held).to.equal(units(120) + units(60, 120) - units(60));
    await expectLedgersToSum(store, products);
  });

  it('runs a transaction that lost a deadlock again: both rivals take effect, once each', async () => {
    const store = storeOf();
    const [a, b] = [
      await aStoredProduct(store, { quantityInStock: 10 }),
      await aStoredProduct(store, { quantityInStock: 10 }),
    ];
    let bothHoldOne!: () => void;
    const barrier = new Promise<void>((resolve) => (bothHoldOne = resolve));
    let holding = 0;
    let runs = 0;
    const addOne = async (tx: StockTransaction, product: Product) => {
      const stock = (await tx.stock.lock(product.id))!;
      await tx.stock.save(changeOf(stock.adjust(DEFAULT_LOCATION_ID, 1, DEFAULT_STOCK_POLICY)), aContext());
    };
    // Each locks its first product, waits until the other has too, then wants the other's: a deadlock, the first
    // time (locking out of id order is what the use cases never do).
    const rival = (first: Product, second: Product) =>
      store.unitOfWork.run(async (tx) => {
        runs++;
        await addOne(tx, first);
        if (++holding === 2) bothHoldOne();
        if (runs <= 2) await barrier;
        await addOne(tx, second);
      });
    await Promise.all([rival(a, b), rival(b, a)]);
    expect(runs, 'the loser ran once more').to.equal(3);
    for (const p of [a, b]) expect((await store.products.findById(p.id))!.quantityInStock).to.equal(12);
    await expectLedgersToSum(store, [a, b]);
  });

  it('holds exactly 30 of 10 + 20 at two locations under 300 concurrent lock, hold and save, none run again', async () => {
    const store = storeOf(1);
    const { id } = await aStoredProduct(store, { quantityInStock: 10 });
    const second = await aStoredLocation(store, { code: 'second-shop' });
    await adjustStored(store, id, second.id, 20);
    const locations = await store.locations.list();
    const outcomes = await Promise.all(
      Array.from({ length: 300 }, () =>
        store.unitOfWork.run(async (tx) => {
          const stock = (await tx.stock.lock(id))!;
          const held = stock.hold({ quantity: 1 }, locations, 'most-available', DEFAULT_STOCK_POLICY);
          if (isRefusal(held)) return held.status;
          await tx.stock.save(held.change, aContext());
          return 'held';
        }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'held')).to.have.length(30);
    expect(outcomes.filter((outcome) => outcome === 'short')).to.have.length(270);
    expect(await levelsOf(store, id)).to.deep.equal([
      {
        locationId: DEFAULT_LOCATION_ID,
        onHand: 10,
        reserved: 10,
        committed: 0,
        qualityControl: 0,
        damaged: 0,
        incoming: 0,
      },
      { locationId: second.id, onHand: 20, reserved: 20, committed: 0, qualityControl: 0, damaged: 0, incoming: 0 },
    ]);
    expect(await store.products.findById(id)).to.include({ reservedQuantity: 30, availableQuantity: 0 });
    await expectLedgersToSum(store, [{ id }]);
  });

  it('answers UnavailableError (503, a transient failure for a consumer) when a transaction keeps losing conflicts, and never runs again what failed otherwise', async () => {
    const store = storeOf(3);
    let runs = 0;
    const conflict = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    await expect(
      store.unitOfWork.run(async () => {
        runs++;
        throw conflict;
      }),
    )
      .to.be.rejectedWith(UnavailableError)
      .and.eventually.include({ code: 'DATABASE_UNAVAILABLE', retryAfterSeconds: 1 });
    expect(runs).to.equal(3);
    runs = 0;
    await expect(
      store.unitOfWork.run(async () => {
        runs++;
        throw new Error('a bug');
      }),
    ).to.be.rejectedWith('a bug');
    expect(runs).to.equal(1);
  });
});
