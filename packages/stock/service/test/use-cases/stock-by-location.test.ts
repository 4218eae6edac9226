import {
  AdjustStock,
  ChangeStockState,
  CommitReservation,
  CreateProduct,
  ListStockMovements,
  Locations,
  ReleaseReservation,
  ReserveStock,
  StockTransfers,
  UpdateProduct,
} from '@stock/application';
import {
  type AllocationStrategy,
  BackorderNotFilledError,
  DEFAULT_LOCATION_ID,
  InsufficientStockError,
  LocationDraft,
  LocationNotFoundError,
  type Product,
  type ReservationLine,
  ReservationRequest,
  StockAdjustment,
  StockAtSeveralLocationsError,
  StockShortageError,
  StockStateChange,
  StockStateShortError,
  TransferNotInTransitError,
  TransferRequest,
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

const OWNER = 'shop-a';
const AUDITOR = 'ledger-auditor';

/**
 * Stock by location through the use cases, on a store: levels, split holds,
 * transfers, backorders and low-stock alerts, each checked against the
 * ledger, whose deltas sum to every level.
 */
function stockByLocation(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  const clock = () => new Date();
  const locations = () => new Locations(store.unitOfWork);
  const reserve = (allocation: AllocationStrategy = 'priority') =>
    new ReserveStock(store.unitOfWork, { clock, newId: randomUUID, defaultTtlSeconds: 900, allocation });
  const adjust = (id: number, delta: number, locationId?: number) =>
    new AdjustStock(store.unitOfWork, clock)
      .execute(id, StockAdjustment.create({ delta, ...(locationId !== undefined && { locationId }) }))
      .then((result) => result.value);
  const transfers = () => new StockTransfers(store.unitOfWork, { clock, newId: randomUUID });
  const product = async (onHand = 0, settings: { backorderLimit?: number; lowStockThreshold?: number } = {}) =>
    (await new CreateProduct(store.unitOfWork, clock).execute(aProduct({ quantityInStock: onHand, ...settings })))
      .value;
  const location = (code: string, priority = 0) =>
    locations().create(LocationDraft.create({ code, name: `Location ${code}`, priority }));
  const hold = (
    lines: ReservationLine[],
    options: { allowBackorder?: boolean; allocation?: AllocationStrategy } = {},
  ) =>
    reserve(options.allocation)
      .execute(OWNER, ReservationRequest.create({ reference: randomUUID(), lines, ...options }))
      .then((result) => result.value.reservation);
  const reload = async (p: Pick<Product, 'id'>) => (await store.products.findById(p.id))!;
  const levels = async (p: Pick<Product, 'id'>) =>
    Object.fromEntries(
      (await locations().levelsOf(p.id)).map((level) => [
        level.locationId,
        { onHand: level.onHand, reserved: level.reserved, incoming: level.incoming },
      ]),
    );
  const events = async (type: string) => {
    const rows = await store.outbox.claim(10_000, 60_000, Date.now());
    await store.outbox.markPublished(
      rows.map((row) => row.id),
      Date.now(),
    );
    return rows.filter((row) => row.type === type).map((row) => (JSON.parse(row.payload) as { data: unknown }).data);
  };

  /** The ledger's invariant per location: for each (product, location), the deltas sum to the level. */
  const expectLedgerToSumByLocation = async (p: Pick<Product, 'id'>) => {
    const sums = new Map<number, { onHand: number; reserved: number }>();
    const ledger = new ListStockMovements(store.products, store.movements);
    for (let after = 0; ;) {
      const page = await ledger.execute(p.id, { after, limit: 1000 }, AUDITOR);
      for (const movement of page.items) {
        const sum = sums.get(movement.locationId) ?? { onHand: 0, reserved: 0 };
        sums.set(movement.locationId, {
          onHand: sum.onHand + movement.quantityDelta,
          reserved: sum.reserved + movement.reservedDelta,
        });
      }
      if (page.next === undefined) break;
      after = page.next;
    }
    const byLocation = Object.fromEntries(
      (await locations().levelsOf(p.id))
        .filter((level) => level.onHand !== 0 || level.reserved !== 0 || sums.has(level.locationId))
        .map((level) => [level.locationId, { onHand: level.onHand, reserved: level.reserved }]),
    );
    expect(Object.fromEntries(sums), `the ledger of product ${p.id} by location`).to.deep.equal(byLocation);
  };

  onOneStore(open, (opened) => (store = opened));

  describe('levels', () => {
    it('keeps a new product and a client that knows nothing of locations at the default location', async () => {
      const p = await product(7);
      await adjust(p.id, 3);
      expect(await levels(p)).to.deep.equal({ [DEFAULT_LOCATION_ID]: { onHand: 10, reserved: 0, incoming: 0 } });
      expect((await locations().list()).map((l) => l.code)).to.deep.equal(['default']);
      await expectLedgerToSumByLocation(p);
    });

    it('adjusts at a named location, sums the product over its locations, and refuses an unknown one', async () => {
      const east = await location('east');
      const p = await product(5);
      const after = await adjust(p.id, 4, east.id);
      expect(after).to.include({ quantityInStock: 9, availableQuantity: 9 });
      expect(await levels(p)).to.deep.equal({
        [DEFAULT_LOCATION_ID]: { onHand: 5, reserved: 0, incoming: 0 },
        [east.id]: { onHand: 4, reserved: 0, incoming: 0 },
      });
      await expect(adjust(p.id, 1, 999_999)).to.be.rejectedWith(LocationNotFoundError);
      // What is at another location does not make up for this one.
      await expect(adjust(p.id, -5, east.id)).to.be.rejectedWith(InsufficientStockError);
      await expectLedgerToSumByLocation(p);
    });

    it('lets a PUT set the stock at the default location only while the product has none elsewhere', async () => {
      const east = await location('east');
      const p = await product(5);
      const update = new UpdateProduct(store.unitOfWork, clock);
      const changed = await update.execute(p.id, aProduct({ name: p.name, quantityInStock: 8 }));
      expect(changed.quantityInStock).to.equal(8);
      await adjust(p.id, 1, east.id);
      await expect(update.execute(p.id, aProduct({ quantityInStock: 2 }))).to.be.rejectedWith(
        StockAtSeveralLocationsError,
      );
      // A PUT that leaves the stock as it is still changes the rest.
      const renamed = await update.execute(p.id, aProduct({ name: 'Renamed', quantityInStock: 9 }));
      expect(renamed).to.include({ name: 'Renamed', quantityInStock: 9 });
      await expectLedgerToSumByLocation(p);
    });
  });

  describe('split holds', () => {
    it('fills a line from the first location by priority, splitting it when one has too few', async () => {
      const [first, second] = [await location('first', 1), await location('second', 2)];
      const p = await product(0);
      await adjust(p.id, 10, first.id);
      await adjust(p.id, 20, second.id);
      const reservation = await hold([{ productId: p.id, quantity: 15 }]);
      expect(reservation.lines[0]).to.deep.include({
        allocations: [
          { locationId: first.id, quantity: 10 },
          { locationId: second.id, quantity: 5 },
        ],
        backorderedQuantity: 0,
      });
      expect(await levels(p)).to.deep.include({
        [first.id]: { onHand: 10, reserved: 10, incoming: 0 },
        [second.id]: { onHand: 20, reserved: 5, incoming: 0 },
      });
      await expectLedgerToSumByLocation(p);
    });

    it('fills from the location with the most available under most-available, and from a named location only', async () => {
      const [first, second] = [await location('first', 1), await location('second', 2)];
      const p = await product(0);
      await adjust(p.id, 10, first.id);
      await adjust(p.id, 20, second.id);
      const most = await hold([{ productId: p.id, quantity: 15 }], { allocation: 'most-available' });
      expect((most.lines[0] as { allocations: unknown }).allocations).to.deep.equal([
        { locationId: second.id, quantity: 15 },
      ]);
      const named = await hold([{ productId: p.id, quantity: 4, locationId: first.id }]);
      expect((named.lines[0] as { allocations: unknown }).allocations).to.deep.equal([
        { locationId: first.id, quantity: 4 },
      ]);
      const short = hold([{ productId: p.id, quantity: 7, locationId: first.id }]);
      await expect(short).to.be.rejectedWith(StockShortageError);
      expect(((await short.catch((e: unknown) => e)) as StockShortageError).shortages).to.deep.equal([
        { productId: p.id, requested: 7, available: 6 },
      ]);
      await expect(hold([{ productId: p.id, quantity: 1, locationId: 999_999 }])).to.be.rejectedWith(
        LocationNotFoundError,
      );
    });

    it('commits from exactly the allocated locations, and a release gives the units back there', async () => {
      const [first, second] = [await location('first', 1), await location('second', 2)];
      const p = await product(0);
      await adjust(p.id, 3, first.id);
      await adjust(p.id, 5, second.id);
      const committed = await hold([{ productId: p.id, quantity: 4 }]);
      const released = await hold([{ productId: p.id, quantity: 3 }]);
      await new CommitReservation(store.unitOfWork, clock).execute(committed.id, OWNER);
      expect(await levels(p)).to.deep.include({
        [first.id]: { onHand: 0, reserved: 0, incoming: 0 },
        [second.id]: { onHand: 4, reserved: 3, incoming: 0 },
      });
      await new ReleaseReservation(store.unitOfWork, clock).execute(released.id, OWNER);
      expect(await levels(p)).to.deep.include({ [second.id]: { onHand: 4, reserved: 0, incoming: 0 } });
      expect(await reload(p)).to.include({ quantityInStock: 4, reservedQuantity: 0 });
      await expectLedgerToSumByLocation(p);
    });

    it('gives 300 concurrent holds of 1 on 10 + 20 units at two locations exactly 30, overselling none', async function () {
      this.timeout(120_000);
      const [first, second] = [await location('first', 1), await location('second', 2)];
      const p = await product(0);
      await adjust(p.id, 10, first.id);
      await adjust(p.id, 20, second.id);
      const results = await Promise.allSettled(
        Array.from({ length: 300 }, () => hold([{ productId: p.id, quantity: 1 }])),
      );
      const held = results.filter((result) => result.status === 'fulfilled');
      const refused = results.filter((result) => result.status === 'rejected');
      expect(held).to.have.length(30);
      for (const result of refused) expect(result.reason).to.be.instanceOf(StockShortageError);
      expect(await levels(p)).to.deep.include({
        [first.id]: { onHand: 10, reserved: 10, incoming: 0 },
        [second.id]: { onHand: 20, reserved: 20, incoming: 0 },
      });
      expect(await reload(p)).to.include({ reservedQuantity: 30, availableQuantity: 0 });
      await expectLedgerToSumByLocation(p);
    });
  });

  describe('transfers', () => {
    const request = (productId: number, from: number, to: number, quantity: number, reference = randomUUID()) =>
      TransferRequest.create({ productId, fromLocationId: from, toLocationId: to, quantity, reference });

    it('takes the units out of from at once, shows them incoming at to, and puts them on hand there on receipt', async () => {
      const east = await location('east');
      const p = await product(10);
      const { value: sent } = await transfers().send(request(p.id, DEFAULT_LOCATION_ID, east.id, 4));
      expect(sent).to.include({ status: 'in-transit', quantity: 4 });
      expect(await levels(p)).to.deep.equal({
        [DEFAULT_LOCATION_ID]: { onHand: 6, reserved: 0, incoming: 0 },
        [east.id]: { onHand: 0, reserved: 0, incoming: 4 },
      });
      expect(await reload(p)).to.include({ quantityInStock: 6, availableQuantity: 6 });
      const received = await transfers().receive(sent.id);
      expect(received.status).to.equal('received');
      expect(await levels(p)).to.deep.include({ [east.id]: { onHand: 4, reserved: 0, incoming: 0 } });
      // Receiving again answers it as it is; cancelling a received one is refused.
      expect((await transfers().receive(sent.id)).status).to.equal('received');
      await expect(transfers().cancel(sent.id)).to.be.rejectedWith(TransferNotInTransitError);
      const movements = await new ListStockMovements(store.products, store.movements).execute(
        p.id,
        { after: 0, limit: 100 },
        AUDITOR,
      );
      const steps = movements.items.filter((movement) => movement.transferId === sent.id);
      expect(steps.map((m) => [m.kind, m.locationId, m.quantityDelta])).to.deep.equal([
        ['transfer-sent', DEFAULT_LOCATION_ID, -4],
        ['transfer-received', east.id, 4],
      ]);
      await expectLedgerToSumByLocation(p);
    });

    it('returns a cancelled transfer to from, answers a used reference with the first, and refuses short stock', async () => {
      const east = await location('east');
      const p = await product(10);
      const reference = randomUUID();
      const { value: sent } = await transfers().send(request(p.id, DEFAULT_LOCATION_ID, east.id, 4, reference));
      const again = await transfers().send(request(p.id, DEFAULT_LOCATION_ID, east.id, 9, reference));
      expect(again).to.deep.equal({ value: sent, replayed: true });
      await transfers().cancel(sent.id);
      expect(await levels(p)).to.deep.equal({
        [DEFAULT_LOCATION_ID]: { onHand: 10, reserved: 0, incoming: 0 },
        [east.id]: { onHand: 0, reserved: 0, incoming: 0 },
      });
      await expect(transfers().send(request(p.id, DEFAULT_LOCATION_ID, east.id, 11))).to.be.rejectedWith(
        InsufficientStockError,
      );
      await expectLedgerToSumByLocation(p);
    });
  });

  describe('backorders', () => {
    it('holds beyond what is available within the limit, refuses its commit, and fills it oldest first as stock arrives', async () => {
      const p = await product(1, { backorderLimit: 5 });
      const older = await hold([{ productId: p.id, quantity: 3 }], { allowBackorder: true });
      const newer = await hold([{ productId: p.id, quantity: 2 }], { allowBackorder: true });
      expect(older.lines[0]).to.deep.include({
        allocations: [{ locationId: DEFAULT_LOCATION_ID, quantity: 1 }],
        backorderedQuantity: 2,
      });
      expect(await reload(p)).to.include({ backorderedQuantity: 4, availableQuantity: -4, stockState: 'out' });
      // Beyond the limit, or without allowBackorder, it is short.
      await expect(hold([{ productId: p.id, quantity: 2 }], { allowBackorder: true })).to.be.rejectedWith(
        StockShortageError,
      );
      await expect(hold([{ productId: p.id, quantity: 1 }])).to.be.rejectedWith(StockShortageError);
      const commit = new CommitReservation(store.unitOfWork, clock);
      await expect(commit.execute(older.id, OWNER)).to.be.rejectedWith(BackorderNotFilledError);

      await adjust(p.id, 3);
      const product3 = await reload(p);
      expect(product3).to.include({ backorderedQuantity: 1, reservedQuantity: 4, quantityInStock: 4 });
      await commit.execute(older.id, OWNER);
      await expect(commit.execute(newer.id, OWNER)).to.be.rejectedWith(BackorderNotFilledError);
      await new ReleaseReservation(store.unitOfWork, clock).execute(newer.id, OWNER);
      expect(await reload(p)).to.include({ backorderedQuantity: 0, reservedQuantity: 0, quantityInStock: 1 });
      await expectLedgerToSumByLocation(p);
    });

    it('fills a line that named a location only with stock that arrives there, not with stock elsewhere', async () => {
      const east = (await location('east')).id;
      const p = await product(0, { backorderLimit: 5 });
      const atEast = await hold([{ productId: p.id, quantity: 2, locationId: east }], { allowBackorder: true });
      const anywhere = await hold([{ productId: p.id, quantity: 1 }], { allowBackorder: true });
      await adjust(p.id, 3);
      // The default location's stock fills the line that named none; the one that named east still waits.
      expect(await reload(p)).to.include({ backorderedQuantity: 2, reservedQuantity: 1, quantityInStock: 3 });
      const commit = new CommitReservation(store.unitOfWork, clock);
      await expect(commit.execute(atEast.id, OWNER)).to.be.rejectedWith(BackorderNotFilledError);
      await commit.execute(anywhere.id, OWNER);
      await adjust(p.id, 2, east);
      expect(await levels(p)).to.deep.include({ [east]: { onHand: 2, reserved: 2, incoming: 0 } });
      await commit.execute(atEast.id, OWNER);
      expect(await reload(p)).to.include({ backorderedQuantity: 0, reservedQuantity: 0, quantityInStock: 2 });
      await expectLedgerToSumByLocation(p);
    });
  });

  describe('low stock', () => {
    it('writes stock.level.low below the threshold and stock.level.restored at threshold + hysteresis, once each', async () => {
      const p = await product(10, { lowStockThreshold: 5 });
      await events('stock.level.low');
      await adjust(p.id, -6); // 4: low
      await adjust(p.id, -1); // 3: still low, nothing new
      expect(await reload(p)).to.include({ stockState: 'low' });
      await adjust(p.id, 2); // 5: at the threshold, not yet threshold + 1
      const low = await events('stock.level.low');
      expect(low).to.deep.equal([{ productId: p.id, available: 4, threshold: 5 }]);
      await adjust(p.id, 1); // 6: restored
      expect(await events('stock.level.restored')).to.deep.equal([{ productId: p.id, available: 6, threshold: 5 }]);
    });

    it('sees each crossing exactly once under concurrent changes', async function () {
      this.timeout(60_000);
      const p = await product(20, { lowStockThreshold: 10 });
      await events('stock.level.low');
      await Promise.all(Array.from({ length: 20 }, () => adjust(p.id, -1)));
      const rows = await store.outbox.claim(10_000, 60_000, Date.now());
      expect(rows.filter((row) => row.type === 'stock.level.low')).to.have.length(1);
      expect(rows.filter((row) => row.type === 'stock.level.restored')).to.have.length(0);
    });
  });

  describe('named states', () => {
    const changeState = (id: number, input: Parameters<typeof StockStateChange.create>[0]) =>
      new ChangeStockState(store.unitOfWork, clock)
        .execute(id, StockStateChange.create(input), { caller: 'clerk' })
        .then((result) => result.value);
    const adjustIn = (id: number, delta: number, state: string, reasonCode?: string) =>
      new AdjustStock(store.unitOfWork, clock)
        .execute(id, StockAdjustment.create({ delta, state, ...(reasonCode !== undefined && { reasonCode }) }))
        .then((result) => result.value);
    const statesAt = async (p: Pick<Product, 'id'>, locationId: number) => {
      const level = (await locations().levelsOf(p.id)).find((each) => each.locationId === locationId)!;
      const { onHand, reserved, committed, qualityControl, damaged, available } = level;
      return { onHand, reserved, committed, qualityControl, damaged, available };
    };

    it('moves exactly the available units aside and back, one state-changed movement each, the caller its actor', async () => {
      const p = await product(5);
      await hold([{ productId: p.id, quantity: 2 }]);
      await changeState(p.id, {
        locationId: DEFAULT_LOCATION_ID,
        quantity: 3,
        from: 'available',
        to: 'quality-control',
      });
      expect(await statesAt(p, DEFAULT_LOCATION_ID)).to.deep.equal({
        onHand: 5,
        reserved: 2,
        committed: 0,
        qualityControl: 3,
        damaged: 0,
        available: 0,
      });
      await changeState(p.id, {
        locationId: DEFAULT_LOCATION_ID,
        quantity: 1,
        from: 'quality-control',
        to: 'damaged',
        reasonCode: 'damaged',
      });
      const movements = await store.movements.list(p.id, { after: 0, limit: 10 });
      expect(
        movements.slice(-2).map(({ kind, qualityControlDelta, damagedDelta, reasonCode, actor }) => ({
          kind,
          qualityControlDelta,
          damagedDelta,
          reasonCode,
          actor,
        })),
      ).to.deep.equal([
        { kind: 'state-changed', qualityControlDelta: 3, damagedDelta: 0, reasonCode: 'correction', actor: 'clerk' },
        { kind: 'state-changed', qualityControlDelta: -1, damagedDelta: 1, reasonCode: 'damaged', actor: 'clerk' },
      ]);
      expect(await reload(p)).to.include({ qualityControlQuantity: 2, damagedQuantity: 1, availableQuantity: 0 });
      await expectLedgersToSum(store, [p]);
    });

    it('refuses one unit more than the state holds, naming what it holds, and moves nothing', async () => {
      const p = await product(5);
      await changeState(p.id, {
        locationId: DEFAULT_LOCATION_ID,
        quantity: 2,
        from: 'available',
        to: 'quality-control',
      });
      const before = await statesAt(p, DEFAULT_LOCATION_ID);
      const refused = changeState(p.id, {
        locationId: DEFAULT_LOCATION_ID,
        quantity: 3,
        from: 'quality-control',
        to: 'available',
      });
      await expect(refused).to.be.rejectedWith(StockStateShortError).and.eventually.include({
        available: 2,
        from: 'quality-control',
      });
      await expect(
        changeState(p.id, { locationId: DEFAULT_LOCATION_ID, quantity: 4, from: 'available', to: 'damaged' }),
      ).to.be.rejectedWith(StockStateShortError);
      expect(await statesAt(p, DEFAULT_LOCATION_ID)).to.deep.equal(before);
    });

    it('refuses a state change at a location that does not exist', async () => {
      const p = await product(5);
      await expect(
        changeState(p.id, { locationId: 424242, quantity: 1, from: 'available', to: 'damaged' }),
      ).to.be.rejectedWith(LocationNotFoundError);
    });

    it('fills a waiting backorder with units that pass quality control', async () => {
      const p = await product(2, { backorderLimit: 3 });
      await changeState(p.id, {
        locationId: DEFAULT_LOCATION_ID,
        quantity: 2,
        from: 'available',
        to: 'quality-control',
      });
      await hold([{ productId: p.id, quantity: 2 }], { allowBackorder: true });
      expect(await reload(p)).to.include({ backorderedQuantity: 2 });
      await changeState(p.id, {
        locationId: DEFAULT_LOCATION_ID,
        quantity: 2,
        from: 'quality-control',
        to: 'available',
      });
      expect(await reload(p)).to.include({ backorderedQuantity: 0, reservedQuantity: 2, qualityControlQuantity: 0 });
      await expectLedgersToSum(store, [p]);
    });

    it('writes off exactly the damaged units, refuses one more, and adds damaged units with their reason code', async () => {
      const p = await product(5);
      await adjustIn(p.id, 3, 'damaged', 'returned');
      expect(await statesAt(p, DEFAULT_LOCATION_ID)).to.include({ onHand: 8, damaged: 3, available: 5 });
      await expect(adjustIn(p.id, -4, 'damaged'))
        .to.be.rejectedWith(InsufficientStockError)
        .and.eventually.include({
          available: 3,
          state: 'damaged',
        });
      await adjustIn(p.id, -3, 'damaged', 'damaged');
      expect(await statesAt(p, DEFAULT_LOCATION_ID)).to.include({ onHand: 5, damaged: 0, available: 5 });
      const codes = (await store.movements.list(p.id, { after: 0, limit: 10 })).map(({ reasonCode }) => reasonCode);
      expect(codes).to.deep.equal(['created', 'returned', 'damaged']);
      await expectLedgersToSum(store, [p]);
    });

    it('never takes committed, quality-control or damaged units out as available ones', async () => {
      const p = await product(4);
      await changeState(p.id, {
        locationId: DEFAULT_LOCATION_ID,
        quantity: 1,
        from: 'available',
        to: 'quality-control',
      });
      await adjustIn(p.id, 1, 'damaged');
      await expect(adjust(p.id, -4))
        .to.be.rejectedWith(InsufficientStockError)
        .and.eventually.include({ available: 3 });
      await adjust(p.id, -3);
      expect(await statesAt(p, DEFAULT_LOCATION_ID)).to.deep.equal({
        onHand: 2,
        reserved: 0,
        committed: 0,
        qualityControl: 1,
        damaged: 1,
        available: 0,
      });
    });
  });
}

for (const { name, open } of STORES) describe(`stock by location ${name}`, () => stockByLocation(open));
