import { UnavailableError } from '@platform/kernel';
import { type Database, MikroOrmOutbox } from '@platform/mikro-orm';
import { scratchUrl } from '@platform/test-kit';
import { CreateProduct, ExpireReservations, ReleaseReservation, ReserveStock } from '@stock/application';
import { type Product, ReservationRequest } from '@stock/domain';
import { aProduct, CONTRACT_TTL_MS, expectLedgersToSum, type StockStoreUnderTest } from '@stock/test-kit';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomUUID } from 'node:crypto';
import {
  MikroOrmProductRepository,
  MikroOrmReservationRepository,
  MikroOrmStockMovementRepository,
  MikroOrmUnitOfWork,
  openStockDatabase,
} from '../src';

chai.use(chaiAsPromised);
const { expect } = chai;

/**
 * On PostgreSQL, transactions that lock the same rows in opposite orders
 * deadlock: the server aborts one of them (40P01) after deadlock_timeout.
 * Every path that locks several products locks them in product id order, the
 * expiry sweeper included; a transaction that loses a conflict anyway runs
 * again, and answers UnavailableError only when it keeps losing.
 */
describe('Lock order and conflicts on PostgreSQL', function () {
  this.timeout(120_000);
  let database: Database;
  let cleanUp: () => Promise<void>;
  let now = new Date('2026-11-23T10:00:00Z');
  const clock = () => now;

  /** The store, with a unit of work that runs each transaction `attempts` times at most. */
  const storeOf = (attempts?: number): StockStoreUnderTest => ({
    unitOfWork: new MikroOrmUnitOfWork(database, CONTRACT_TTL_MS, Date.now, attempts === undefined ? {} : { attempts }),
    products: new MikroOrmProductRepository(database.session),
    reservations: new MikroOrmReservationRepository(database.session),
    movements: new MikroOrmStockMovementRepository(database.session),
    outbox: new MikroOrmOutbox(database.session),
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

  it('sweeps expired reservations while multi-product reservations and releases run, and no transaction deadlocks', async () => {
    // One attempt each: a deadlock is not run again here, it fails the test.
    const store = storeOf(1);
    const create = new CreateProduct(store.unitOfWork, clock);
    const products: Product[] = [];
    for (let i = 0; i < 4; i++) products.push((await create.execute(aProduct({ quantityInStock: 100_000 }))).value);
    const reserve = new ReserveStock(store.unitOfWork, { clock, newId: randomUUID, defaultTtlSeconds: 60 });
    const release = new ReleaseReservation(store.unitOfWork, clock);
    const expire = new ExpireReservations(store.unitOfWork, clock);
    const holder = 'shop-a';
    const hold = (lines: { productId: number; quantity: number }[]) =>
      reserve.execute(holder, ReservationRequest.create({ reference: randomUUID(), lines }));
    const all = products.map((p) => ({ productId: p.id, quantity: 1 }));
    for (let round = 0; round < 6; round++) {
      // Holds that expire in the order highest product first: a sweep that locked in expiry order would take the
      // products downwards.
      for (let n = 0; n < 40; n++) {
        now = new Date(now.getTime() + 1);
        await hold([{ productId: products[products.length - 1 - (n % products.length)]!.id, quantity: 1 }]);
      }
      const longer = [];
      for (let n = 0; n < 10; n++)
        longer.push(
          (
            await reserve.execute(
              holder,
              ReservationRequest.create({ reference: randomUUID(), lines: all, ttlSeconds: 3600 }),
            )
          ).value.reservation.id,
        );
      now = new Date(now.getTime() + 61_000);
      // Four sweepers of ten each, against twenty reservations of every product (locked upwards) and ten releases of
      // them.
      await Promise.all([
        ...Array.from({ length: 4 }, () => expire.execute(10)),
        ...Array.from({ length: 20 }, () => hold(all)),
        ...longer.map((id) => release.execute(id, holder)),
      ]);
    }
    while ((await expire.execute()).length > 0);
    for (const p of products) {
      const current = (await store.products.findById(p.id))!;
      // The last round's twenty holds of every product are not due yet.
      expect(current.reservedQuantity).to.be.within(0, current.quantityInStock);
    }
    await expectLedgersToSum(store, products);
  });

  it('runs a transaction that lost a deadlock again: both rivals take effect, once each', async () => {
    const store = storeOf();
    const create = new CreateProduct(store.unitOfWork, clock);
    const [a, b] = [
      (await create.execute(aProduct({ quantityInStock: 10 }))).value,
      (await create.execute(aProduct({ quantityInStock: 10 }))).value,
    ];
    let bothHoldOne!: () => void;
    const barrier = new Promise<void>((resolve) => (bothHoldOne = resolve));
    let holding = 0;
    let runs = 0;
    // Each adjusts its first product, waits until the other has too, then wants the other's: a deadlock, the first
    // time.
    const rival = (first: Product, second: Product) =>
      store.unitOfWork.run(async (tx) => {
        runs++;
        await tx.products.adjustStock(first.id, 1, { at: now });
        if (++holding === 2) bothHoldOne();
        if (runs <= 2) await barrier;
        await tx.products.adjustStock(second.id, 1, { at: now });
      });
    await Promise.all([rival(a, b), rival(b, a)]);
    expect(runs, 'the loser ran once more').to.equal(3);
    for (const p of [a, b]) expect((await store.products.findById(p.id))!.quantityInStock).to.equal(12);
    await expectLedgersToSum(store, [a, b]);
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
