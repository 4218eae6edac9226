import type { UnitOfWork } from '@platform/kernel';
import {
  AdjustStock,
  CommitReservation,
  CreateProduct,
  DeleteProduct,
  ExpireReservations,
  GetReservation,
  ListStockMovements,
  ReleaseReservation,
  ReserveStock,
  UpdateProduct,
} from '@stock/application';
import {
  ANONYMOUS_CALLER,
  DEFAULT_LOCATION_ID,
  InsufficientStockError,
  type Product,
  type ProductStockRepository,
  type StockChange,
  type MovementContext,
  ProductReservedError,
  type ReservationLine,
  ReservationNotFoundError,
  ReservationNotHeldError,
  ReservationRequest,
  StockAdjustment,
  StockShortageError,
  type StockTransaction,
  UnknownProductsError,
} from '@stock/domain';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomUUID } from 'node:crypto';
import {
  aProduct,
  expectLedgersToSum as expectLedgers,
  onOneStore,
  type OpenStockStore,
  type StockStoreUnderTest,
} from '@stock/domain/testing';
import { STORES } from './stores';

chai.use(chaiAsPromised);
const { expect } = chai;

/** The caller that makes the holds of these tests, as an HTTP caller's token subject would. */
const OWNER = 'shop-a';
/** Another caller, with the same rights. */
const OTHER = 'shop-b';

/**
 * Reservations and the stock ledger on a store, through the use cases:
 * all-or-nothing holds, references answered once, settlements that end in one
 * state however they race, and ledgers that sum to the products' quantities.
 */
function reservationUseCases(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  let now = new Date('2026-11-23T10:00:00Z');
  const clock = () => now;
  const useCases = () => ({
    reserve: new ReserveStock(store.unitOfWork, { clock, newId: randomUUID, defaultTtlSeconds: 900 }),
    commit: new CommitReservation(store.unitOfWork, clock),
    release: new ReleaseReservation(store.unitOfWork, clock),
    expire: new ExpireReservations(store.unitOfWork, clock),
    get: new GetReservation(store.reservations),
    adjust: new AdjustStock(store.unitOfWork, clock),
    update: new UpdateProduct(store.unitOfWork, clock),
    remove: new DeleteProduct(store.unitOfWork),
    movements: new ListStockMovements(store.products, store.movements),
  });
  const product = async (quantityInStock: number) =>
    (await new CreateProduct(store.unitOfWork, clock).execute(aProduct({ quantityInStock }))).value;
  const request = (lines: ReservationLine[], reference: string = randomUUID(), ttlSeconds?: number) =>
    ReservationRequest.create({ reference, lines, ...(ttlSeconds && { ttlSeconds }) });
  const reload = async (p: Product) => (await store.products.findById(p.id))!;
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('not refused'),
      (error: unknown) => error,
    );

  const expectLedgersToSum = (products: Product[]) => expectLedgers(store, products);

  onOneStore(
    open,
    (opened) => (store = opened),
    () => (now = new Date('2026-11-23T10:00:00Z')),
  );

  it('holds every line, in one go, and shows it as reserved and no longer available', async () => {
    const [a, b] = [await product(5), await product(3)];
    const { value } = await useCases().reserve.execute(
      OWNER,
      request([
        { productId: b.id, quantity: 1 },
        { productId: a.id, quantity: 2 },
        { productId: a.id, quantity: 1 },
      ]),
    );
    expect(value.created).to.equal(true);
    expect(value.reservation).to.include({ status: 'held' });
    expect(value.reservation.lines).to.deep.equal([
      {
        productId: a.id,
        quantity: 3,
        allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 3 }],
        backorderedQuantity: 0,
      },
      {
        productId: b.id,
        quantity: 1,
        allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 1 }],
        backorderedQuantity: 0,
      },
    ]);
    expect(value.reservation.expiresAt.getTime() - now.getTime()).to.equal(900_000);
    expect(await reload(a)).to.include({ quantityInStock: 5, reservedQuantity: 3, availableQuantity: 2 });
    expect(await reload(b)).to.include({ quantityInStock: 3, reservedQuantity: 1, availableQuantity: 2 });
    expect(await useCases().get.execute(value.reservation.id, OWNER)).to.deep.equal(value.reservation);
  });

  it('holds nothing when one line cannot be held, naming every short line', async () => {
    const [a, b, c] = [await product(5), await product(1), await product(0)];
    const error = await refusal(
      useCases().reserve.execute(
        OWNER,
        request([
          { productId: a.id, quantity: 2 },
          { productId: b.id, quantity: 2 },
          { productId: c.id, quantity: 1 },
        ]),
      ),
    );
    expect(error).to.be.instanceOf(StockShortageError);
    expect((error as StockShortageError).shortages).to.deep.equal([
      { productId: b.id, requested: 2, available: 1 },
      { productId: c.id, requested: 1, available: 0 },
    ]);
    for (const p of [a, b, c]) expect((await reload(p)).reservedQuantity).to.equal(0);
    await expectLedgersToSum([a, b, c]);
  });

  it('names the products that do not exist, and holds nothing', async () => {
    const a = await product(5);
    const error = await refusal(
      useCases().reserve.execute(
        OWNER,
        request([
          { productId: a.id, quantity: 1 },
          { productId: 2147483000, quantity: 1 },
          { productId: 2147483001, quantity: 1 },
        ]),
      ),
    );
    expect(error)
      .to.be.instanceOf(UnknownProductsError)
      .and.to.deep.include({ productIds: [2147483000, 2147483001] });
    expect((await reload(a)).reservedQuantity).to.equal(0);
  });

  it('answers a second reservation for the same reference with the first, never a second hold', async () => {
    const a = await product(5);
    const reference = randomUUID();
    const first = await useCases().reserve.execute(OWNER, request([{ productId: a.id, quantity: 2 }], reference));
    const repeats = await Promise.all(
      Array.from({ length: 5 }, () =>
        useCases().reserve.execute(OWNER, request([{ productId: a.id, quantity: 2 }], reference)),
      ),
    );
    for (const repeat of repeats)
      expect(repeat.value).to.deep.equal({ reservation: first.value.reservation, created: false });
    expect((await reload(a)).reservedQuantity).to.equal(2);
  });

  it('lets only the caller that made a hold reach it: another caller’s read, commit and release are ReservationNotFoundError, and it stays held', async () => {
    const a = await product(5);
    const { reservation } = (await useCases().reserve.execute(OWNER, request([{ productId: a.id, quantity: 2 }])))
      .value;
    expect(reservation).to.include({ origin: 'api', owner: OWNER });
    for (const other of [OTHER, ANONYMOUS_CALLER]) {
      await expect(useCases().get.execute(reservation.id, other))
        .to.be.rejectedWith(ReservationNotFoundError)
        .and.eventually.include({ reservationId: reservation.id });
      await expect(useCases().commit.execute(reservation.id, other)).to.be.rejectedWith(ReservationNotFoundError);
      await expect(useCases().release.execute(reservation.id, other)).to.be.rejectedWith(ReservationNotFoundError);
    }
    expect(await useCases().get.execute(reservation.id, OWNER)).to.deep.equal(reservation);
    expect(await reload(a)).to.include({ quantityInStock: 5, reservedQuantity: 2 });
    expect(await useCases().commit.execute(reservation.id, OWNER)).to.include({ status: 'committed' });
    await expect(
      useCases().get.execute(reservation.id, OTHER),
      'settled, it is still not the other’s',
    ).to.be.rejectedWith(ReservationNotFoundError);
    await expectLedgersToSum([a]);
  });

  it('keeps references apart by caller: the same reference from two callers, racing, makes one hold each, and each repeat answers its own', async () => {
    const a = await product(20);
    const reference = randomUUID();
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        useCases().reserve.execute(i % 2 === 0 ? OWNER : OTHER, request([{ productId: a.id, quantity: 1 }], reference)),
      ),
    );
    const mine = outcomes.filter((_, i) => i % 2 === 0).map(({ value }) => value);
    const theirs = outcomes.filter((_, i) => i % 2 === 1).map(({ value }) => value);
    expect(mine.filter((o) => o.created)).to.have.length(1);
    expect(theirs.filter((o) => o.created)).to.have.length(1);
    expect(new Set(mine.map((o) => o.reservation.id)).size).to.equal(1);
    expect(new Set(theirs.map((o) => o.reservation.id)).size).to.equal(1);
    expect(mine[0]!.reservation).to.include({ owner: OWNER, reference });
    expect(theirs[0]!.reservation).to.include({ owner: OTHER, reference });
    expect(mine[0]!.reservation.id).not.to.equal(theirs[0]!.reservation.id);
    expect((await reload(a)).reservedQuantity).to.equal(2);
    await expectLedgersToSum([a]);
  });

  it('records whom each movement was made for, in the same write, and shows a reader the reservation and request ids of its own movements only', async () => {
    const a = await product(10);
    await useCases().adjust.execute(a.id, StockAdjustment.create({ delta: 1, reason: 'found' }), {
      requestId: 'adjust-by-other',
      caller: OTHER,
    });
    const mine = (
      await useCases().reserve.execute(OWNER, request([{ productId: a.id, quantity: 2 }], randomUUID(), 60), {
        requestId: 'reserve-by-owner',
      })
    ).value.reservation;
    const theirs = (
      await useCases().reserve.execute(OTHER, request([{ productId: a.id, quantity: 3 }], randomUUID(), 3600), {
        requestId: 'reserve-by-other',
      })
    ).value.reservation;
    now = new Date(now.getTime() + 61_000);
    await useCases().expire.execute();
    await useCases().release.execute(theirs.id, OTHER, { requestId: 'release-by-other' });
    const stored = await store.movements.list(a.id, { after: 0, limit: 10 });
    expect(stored.map((m) => [m.kind, m.actor])).to.deep.equal([
      // A write that names no caller is the anonymous caller's (tokens off).
      ['created', ANONYMOUS_CALLER],
      ['adjusted', OTHER],
      ['reserved', OWNER],
      ['reserved', OTHER],
      ['expired', OWNER],
      ['released', OTHER],
    ]);
    const ids = async (reader: string) =>
      (await useCases().movements.execute(a.id, { after: 0, limit: 10 }, reader)).items.map((m) => [
        m.kind,
        m.reservationId,
        m.requestId,
      ]);
    expect(await ids(OWNER)).to.deep.equal([
      ['created', undefined, undefined],
      ['adjusted', undefined, undefined],
      ['reserved', mine.id, 'reserve-by-owner'],
      ['reserved', undefined, undefined],
      ['expired', mine.id, undefined],
      ['released', undefined, undefined],
    ]);
    expect(await ids(OTHER)).to.deep.equal([
      ['created', undefined, undefined],
      ['adjusted', undefined, 'adjust-by-other'],
      ['reserved', undefined, undefined],
      ['reserved', theirs.id, 'reserve-by-other'],
      ['expired', undefined, undefined],
      ['released', theirs.id, 'release-by-other'],
    ]);
    const { items } = await useCases().movements.execute(a.id, { after: 0, limit: 10 }, OWNER);
    expect(items[1], 'what else a movement says stays').to.include({ quantityDelta: 1, reason: 'found' });
    await expectLedgersToSum([a]);
  });

  it('holds exactly the stock when 200 reservations of one race for 50, then keeps the invariants while commits, releases and expiry race', async () => {
    const a = await product(50);
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, () =>
        useCases()
          .reserve.execute(OWNER, request([{ productId: a.id, quantity: 1 }]))
          .then(
            ({ value }) => value.reservation.id,
            (error: unknown) => (error instanceof StockShortageError ? 'short' : String(error)),
          ),
      ),
    );
    const held = outcomes.filter((o) => o !== 'short');
    expect(held).to.have.length(50);
    expect(outcomes.filter((o) => o === 'short')).to.have.length(150);
    expect(await reload(a)).to.include({ reservedQuantity: 50, availableQuantity: 0, quantityInStock: 50 });
    await expectLedgersToSum([a]);

    // Every hold is due now: commits of the first 20 and releases of the next 15 race three sweepers for them, and for
    // the rest.
    now = new Date(now.getTime() + 901_000);
    const notHeld = (error: unknown) => {
      if (!(error instanceof ReservationNotHeldError)) throw error;
    };
    await Promise.all([
      ...held.slice(0, 20).map((id) => useCases().commit.execute(id, OWNER).catch(notHeld)),
      ...held.slice(20, 35).map((id) => useCases().release.execute(id, OWNER).catch(notHeld)),
      useCases().expire.execute(),
      useCases().expire.execute(),
      useCases().expire.execute(),
    ]);
    while ((await useCases().expire.execute()).length > 0);
    const final = await Promise.all(held.map((id) => useCases().get.execute(id, OWNER)));
    const counts = { committed: 0, released: 0, expired: 0, held: 0 } as Record<string, number>;
    for (const r of final) counts[r.status] = (counts[r.status] ?? 0) + 1;
    expect(counts.held, 'nothing left held').to.equal(0);
    expect(counts.committed! + counts.released! + counts.expired!).to.equal(50);
    expect(counts.expired, 'the 15 untouched holds, at least, expired').to.be.at.least(15);
    const after = await reload(a);
    expect(after).to.include({ quantityInStock: 50 - counts.committed!, reservedQuantity: 0 });
    await expectLedgersToSum([a]);
  });

  it('changes nothing when a product refuses to settle what a reservation holds of it: the reservation stays held, its stock as it was', async () => {
    const [a, b] = [await product(5), await product(5)];
    const { reservation } = (
      await useCases().reserve.execute(
        OWNER,
        request(
          [
            { productId: a.id, quantity: 2 },
            { productId: b.id, quantity: 1 },
          ],
          randomUUID(),
          60,
        ),
      )
    ).value;
    // The store's guard refuses b's settlement, as it does when a level holds less than the reservation says.
    const refusing: UnitOfWork<StockTransaction> = {
      run: (work, options) =>
        store.unitOfWork.run((tx) => {
          const stock = Object.assign(Object.create(tx.stock) as ProductStockRepository, {
            save: (change: StockChange, context: MovementContext) =>
              change.productId === b.id
                ? Promise.reject(new Error(`Product ${b.id} refused to settle 1: its level holds less.`))
                : tx.stock.save(change, context),
          });
          return work({ ...tx, stock });
        }, options),
    };
    await expect(new CommitReservation(refusing, clock).execute(reservation.id, OWNER)).to.be.rejectedWith(
      `Product ${b.id} refused to settle 1`,
    );
    await expect(new ReleaseReservation(refusing, clock).execute(reservation.id, OWNER)).to.be.rejectedWith(
      `Product ${b.id} refused to settle 1`,
    );
    now = new Date(now.getTime() + 61_000);
    await expect(new ExpireReservations(refusing, clock).execute()).to.be.rejectedWith(
      `Product ${b.id} refused to settle 1`,
    );
    expect((await useCases().get.execute(reservation.id, OWNER)).status).to.equal('held');
    expect(await reload(a)).to.include({ quantityInStock: 5, reservedQuantity: 2 });
    expect(await reload(b)).to.include({ quantityInStock: 5, reservedQuantity: 1 });
    await expectLedgersToSum([a, b]);
    expect(await store.outbox.countUnpublished()).to.equal(0);
  });

  it('commits: the held quantity leaves the stock and the hold; a repeat is harmless; a release after it is refused', async () => {
    const a = await product(10);
    const { reservation } = (await useCases().reserve.execute(OWNER, request([{ productId: a.id, quantity: 4 }])))
      .value;
    now = new Date(now.getTime() + 1000);
    const committed = await useCases().commit.execute(reservation.id, OWNER, { requestId: 'req-commit' });
    expect(committed).to.include({ status: 'committed' });
    expect(committed.updatedAt).to.deep.equal(now);
    expect(await reload(a)).to.include({ quantityInStock: 6, reservedQuantity: 0 });
    expect(await useCases().commit.execute(reservation.id, OWNER)).to.deep.equal(committed);
    await expect(useCases().release.execute(reservation.id, OWNER))
      .to.be.rejectedWith(ReservationNotHeldError)
      .and.eventually.include({ status: 'committed' });
    const { items } = await useCases().movements.execute(a.id, { after: 0, limit: 10 }, OWNER);
    expect(
      items.map((m) => [m.kind, m.quantityDelta, m.reservedDelta, m.quantityAfter, m.reservedAfter]),
    ).to.deep.equal([
      ['created', 10, 0, 10, 0],
      ['reserved', 0, 4, 10, 4],
      ['committed', -4, -4, 6, 0],
    ]);
    expect(items[2]).to.include({ reservationId: reservation.id, requestId: 'req-commit' });
    expect(items[2]!.at).to.deep.equal(now);
  });

  it('releases: the held quantity is available again; a repeat is harmless; a commit after it is refused', async () => {
    const a = await product(10);
    const { reservation } = (await useCases().reserve.execute(OWNER, request([{ productId: a.id, quantity: 4 }])))
      .value;
    expect(await useCases().release.execute(reservation.id, OWNER)).to.include({ status: 'released' });
    expect(await reload(a)).to.include({ quantityInStock: 10, reservedQuantity: 0 });
    expect(await useCases().release.execute(reservation.id, OWNER)).to.include({ status: 'released' });
    await expect(useCases().commit.execute(reservation.id, OWNER))
      .to.be.rejectedWith(ReservationNotHeldError)
      .and.eventually.include({ status: 'released' });
    await expectLedgersToSum([a]);
  });

  it('ends a reservation in one state when a commit and a release race, and counts it once', async () => {
    const a = await product(100);
    const reservations = [];
    for (let i = 0; i < 10; i++)
      reservations.push(
        (await useCases().reserve.execute(OWNER, request([{ productId: a.id, quantity: 2 }]))).value.reservation,
      );
    await Promise.all(
      reservations.flatMap((r) => [
        useCases()
          .commit.execute(r.id, OWNER)
          .catch(() => 'refused'),
        useCases()
          .release.execute(r.id, OWNER)
          .catch(() => 'refused'),
      ]),
    );
    const final = await Promise.all(reservations.map((r) => useCases().get.execute(r.id, OWNER)));
    const committed = final.filter((r) => r.status === 'committed').length;
    expect(committed + final.filter((r) => r.status === 'released').length).to.equal(10);
    expect(await reload(a)).to.include({ quantityInStock: 100 - 2 * committed, reservedQuantity: 0 });
    await expectLedgersToSum([a]);
  });

  it('expires held reservations past their time, once, even with sweepers racing', async () => {
    const a = await product(20);
    const short = (
      await useCases().reserve.execute(OWNER, request([{ productId: a.id, quantity: 3 }], randomUUID(), 60))
    ).value.reservation;
    const long = (
      await useCases().reserve.execute(OWNER, request([{ productId: a.id, quantity: 5 }], randomUUID(), 3600))
    ).value.reservation;
    now = new Date(now.getTime() + 61_000);
    const swept = (
      await Promise.all([useCases().expire.execute(), useCases().expire.execute(), useCases().expire.execute()])
    ).flat();
    expect(swept.map((r) => [r.id, r.status])).to.deep.equal([[short.id, 'expired']]);
    expect(await reload(a)).to.include({ reservedQuantity: 5 });
    expect((await useCases().get.execute(long.id, OWNER)).status).to.equal('held');
    await expect(useCases().commit.execute(short.id, OWNER)).to.be.rejectedWith(ReservationNotHeldError);
    expect(await useCases().release.execute(short.id, OWNER)).to.include({ status: 'expired' });
    const { items } = await useCases().movements.execute(a.id, { after: 0, limit: 10 }, OWNER);
    expect(items.filter((m) => m.kind === 'expired').map((m) => [m.reservedDelta, m.reservationId])).to.deep.equal([
      [-3, short.id],
    ]);
  });

  it('keeps adjustments, updates and deletes from taking stock that is held', async () => {
    const a = await product(5);
    await useCases().reserve.execute(OWNER, request([{ productId: a.id, quantity: 3 }]));
    await expect(useCases().adjust.execute(a.id, StockAdjustment.create({ delta: -3 })))
      .to.be.rejectedWith(InsufficientStockError)
      .and.eventually.include({ available: 2 });
    expect((await useCases().adjust.execute(a.id, StockAdjustment.create({ delta: -2 }))).value).to.include({
      quantityInStock: 3,
      reservedQuantity: 3,
    });
    await expect(useCases().update.execute(a.id, aProduct({ quantityInStock: 2 }))).to.be.rejectedWith(
      InsufficientStockError,
    );
    expect(await useCases().update.execute(a.id, aProduct({ quantityInStock: 3 }))).to.include({
      quantityInStock: 3,
      reservedQuantity: 3,
    });
    await expect(useCases().remove.execute(a.id))
      .to.be.rejectedWith(ProductReservedError)
      .and.eventually.include({ reservedQuantity: 3 });
    await expectLedgersToSum([a]);
  });

  it('keeps every ledger summing to its product, and every hold counted once, through a storm of reserves, commits, releases, expiries, adjustments and PUTs', async () => {
    const products = [await product(30), await product(30), await product(30)];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const created: string[] = [];
    const held = new Set<string>();
    const done = { reserve: 0, commit: 0, release: 0, expire: 0, adjust: 0, put: 0 };
    const operation = async (i: number) => {
      const roll = random();
      const target = pick(products);
      try {
        if (roll < 0.3) {
          const { reservation } = (
            await useCases().reserve.execute(
              OWNER,
              request(
                [
                  { productId: target.id, quantity: 2 },
                  { productId: pick(products).id, quantity: 1 },
                ],
                randomUUID(),
                1 + Math.floor(random() * 3),
              ),
            )
          ).value;
          created.push(reservation.id);
          held.add(reservation.id);
          done.reserve++;
        } else if (roll < 0.45 && held.size > 0) {
          // Any reservation taken for held may have been settled meanwhile by another worker or the sweeper: the
          // refusal is counted.
          const id = pick([...held]);
          await useCases().commit.execute(id, OWNER);
          held.delete(id);
          done.commit++;
        } else if (roll < 0.6 && held.size > 0) {
          const id = pick([...held]);
          await useCases().release.execute(id, OWNER);
          held.delete(id);
          done.release++;
        } else if (roll < 0.7) {
          now = new Date(now.getTime() + 1000);
          for (const expired of await useCases().expire.execute()) {
            held.delete(expired.id);
            done.expire++;
          }
        } else if (roll < 0.85) {
          await useCases().adjust.execute(
            target.id,
            StockAdjustment.create({ delta: random() < 0.5 ? -2 : 3, reason: `storm ${i}` }),
          );
          done.adjust++;
        } else {
          await useCases().update.execute(target.id, aProduct({ quantityInStock: 20 + Math.floor(random() * 15) }));
          done.put++;
        }
      } catch (error) {
        if (!(
          error instanceof StockShortageError ||
          error instanceof ReservationNotHeldError ||
          error instanceof InsufficientStockError
        ))
          throw error;
      }
    };
    // Six workers, each running its operations one after another, all at once: later operations see the holds earlier
    // ones made.
    await Promise.all(
      Array.from({ length: 6 }, async (_, worker) => {
        for (let n = 0; n < 40; n++) await operation(worker * 40 + n);
      }),
    );
    for (const [kind, count] of Object.entries(done))
      expect(count, `${kind} operations that went through`).to.be.greaterThan(0);
    const reservations = await Promise.all(created.map((id) => useCases().get.execute(id, OWNER)));
    for (const p of products) {
      const current = await reload(p);
      expect(current.reservedQuantity).to.be.within(0, current.quantityInStock);
      const heldOfIt = reservations
        .filter((r) => r.status === 'held')
        .flatMap((r) => r.lines.filter((line) => line.productId === p.id))
        .reduce((sum, line) => sum + line.quantity, 0);
      expect(current.reservedQuantity, `product ${p.id} holds what its held reservations hold`).to.equal(heldOfIt);
    }
    await expectLedgersToSum(products);
  });
}

for (const { name, open } of STORES) describe(`Reservations and the ledger ${name}`, () => reservationUseCases(open));
