import { UnavailableError } from '@platform/kernel';
import { type Database, MikroOrmOutbox } from '@platform/mikro-orm';
import { scratchUrl } from '@platform/test-kit';
import { change, holdChanges, planHold, type Product, type ProductStock, type StockTransaction } from '@stock/domain';
import {
  aContext,
  aStoredLocation,
  aStoredProduct,
  applyChanges,
  CONTRACT_TTL_MS,
  expectLedgersToSum,
  levelsOf,
  type StockStoreUnderTest,
} from '@stock/test-kit';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import {
  MikroOrmLocationRepository,
  MikroOrmProductRepository,
  MikroOrmReservationRepository,
  MikroOrmStockLevelRepository,
  MikroOrmStockMovementRepository,
  MikroOrmTransferRepository,
  MikroOrmUnitOfWork,
  openStockDatabase,
} from '../src';

chai.use(chaiAsPromised);
const { expect } = chai;

/**
 * On PostgreSQL, transactions that lock the same rows in opposite orders
 * deadlock: the server aborts one of them (40P01) after deadlock_timeout.
 * Every change to a product's stock locks the product first
 * (StockLevelRepository.lock), and a transaction that changes several locks
 * them in product id order; a transaction that loses a conflict anyway runs
 * again, and answers UnavailableError only when it keeps losing.
 */
describe('Lock order and conflicts on PostgreSQL', function () {
  this.timeout(120_000);
  let database: Database;
  let cleanUp: () => Promise<void>;

  /** The store, with a unit of work that runs each transaction `attempts` times at most. */
  const storeOf = (attempts?: number): StockStoreUnderTest => {
    const session = database.session;
    return {
      unitOfWork: new MikroOrmUnitOfWork(
        database,
        CONTRACT_TTL_MS,
        Date.now,
        attempts === undefined ? {} : { attempts },
      ),
      products: new MikroOrmProductRepository(session),
      locations: new MikroOrmLocationRepository(session),
      levels: new MikroOrmStockLevelRepository(session),
      transfers: new MikroOrmTransferRepository(session),
      reservations: new MikroOrmReservationRepository(session),
      movements: new MikroOrmStockMovementRepository(session),
      outbox: new MikroOrmOutbox(session),
      reset: async () => {},
      close: async () => {},
    };
  };

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

  /** Locks each product (in the order given), then holds one of each, or gives back one each holds. */
  const holdEach = async (tx: StockTransaction, ids: readonly number[], reserved: 1 | -1) => {
    const locked: ProductStock[] = [];
    for (const id of ids) locked.push((await tx.levels.lock(id))!);
    for (const { product, levels } of locked) {
      const at = levels.find((level) => level.reserved > 0 || reserved > 0)!;
      await tx.levels.apply(product.id, [change('reserved', at.locationId, { reserved })], {}, aContext());
    }
  };

  it('never deadlocks when transactions lock several products in id order, whatever order they name them in', async () => {
    // One attempt each: a deadlock is not run again here, it fails the test.
    const store = storeOf(1);
    const products: Product[] = [];
    for (let i = 0; i < 4; i++) products.push(await aStoredProduct(store, { quantityInStock: 100_000 }));
    const ids = products.map((p) => p.id);
    const shuffled = (n: number) => [...ids].sort((a, b) => ((a * 7919 + n) % 13) - ((b * 7919 + n) % 13));
    const byId = (list: number[]) => [...list].sort((a, b) => a - b);
    await Promise.all(
      Array.from({ length: 120 }, (_, n) =>
        store.unitOfWork.run((tx) => holdEach(tx, byId(shuffled(n).slice(0, 2 + (n % 3))), 1)),
      ),
    );
    await Promise.all(
      Array.from({ length: 60 }, (_, n) =>
        store.unitOfWork.run((tx) => holdEach(tx, byId(shuffled(n).slice(0, 2 + (n % 3))), -1)),
      ),
    );
    const held = (await Promise.all(ids.map((id) => store.products.findById(id)))).reduce(
      (sum, product) => sum + product!.reservedQuantity,
      0,
    );
    const named = (count: number) =>
      Array.from({ length: count }, (_, n) => 2 + (n % 3)).reduce((sum, length) => sum + length, 0);
    expect(held).to.equal(named(120) - named(60));
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
    // Each locks its first product, waits until the other has too, then wants the other's: a deadlock, the first
    // time (locking out of id order is what the use cases never do).
    const rival = (first: Product, second: Product) =>
      store.unitOfWork.run(async (tx) => {
        runs++;
        await tx.levels.lock(first.id);
        await tx.levels.apply(first.id, [change('adjusted', 1, { onHand: 1 })], {}, aContext());
        if (++holding === 2) bothHoldOne();
        if (runs <= 2) await barrier;
        await tx.levels.lock(second.id);
        await tx.levels.apply(second.id, [change('adjusted', 1, { onHand: 1 })], {}, aContext());
      });
    await Promise.all([rival(a, b), rival(b, a)]);
    expect(runs, 'the loser ran once more').to.equal(3);
    for (const p of [a, b]) expect((await store.products.findById(p.id))!.quantityInStock).to.equal(12);
    await expectLedgersToSum(store, [a, b]);
  });

  it('holds exactly 30 of 10 + 20 at two locations under 300 concurrent lock, plan and apply, none run again', async () => {
    const store = storeOf(1);
    const { id } = await aStoredProduct(store, { quantityInStock: 10 });
    const second = await aStoredLocation(store, { code: 'second-shop' });
    await applyChanges(store, id, [change('adjusted', second.id, { onHand: 20 })]);
    const locations = await store.locations.list();
    const outcomes = await Promise.all(
      Array.from({ length: 300 }, () =>
        store.unitOfWork.run(async (tx) => {
          const stock = (await tx.levels.lock(id))!;
          const plan = planHold(stock, locations, { quantity: 1 }, 'most-available');
          if ('status' in plan) return plan.status;
          await tx.levels.apply(id, holdChanges(plan), {}, aContext());
          return 'held';
        }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'held')).to.have.length(30);
    expect(outcomes.filter((outcome) => outcome === 'short')).to.have.length(270);
    expect(await levelsOf(store, id)).to.deep.equal([
      { locationId: 1, onHand: 10, reserved: 10, incoming: 0 },
      { locationId: second.id, onHand: 20, reserved: 20, incoming: 0 },
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
