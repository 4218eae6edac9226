import { DEFAULT_LOCATION_CODE, DEFAULT_LOCATION_ID, DEFAULT_STOCK_POLICY, type Location } from '../src';
import { expect } from 'chai';
import { aLocation, aTransfer } from './builders';
import {
  adjustStored,
  aStoredLocation,
  aStoredProduct,
  holdStored,
  inTransaction,
  levelsOf,
  saveDecided,
} from './stock-fixtures';
import { onOneStore, type OpenStockStore, type StockStoreUnderTest } from './stock-store';

/** What every LocationRepository adapter promises: the default location from the start, unique codes, no stock lost. */
export function locationRepositoryContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  const remove = (id: number) => inTransaction(store, (tx) => tx.locations.remove(id));

  onOneStore(open, (opened) => (store = opened));

  it('has the default location from the start, with id 1 and the code default', async () => {
    const expected: Location = { id: DEFAULT_LOCATION_ID, code: DEFAULT_LOCATION_CODE, name: 'Default', priority: 0 };
    expect(await store.locations.list()).to.deep.equal([expected]);
    expect(await store.locations.findById(DEFAULT_LOCATION_ID)).to.deep.equal(expected);
  });

  it('adds a location with an id of its own and answers it as stored', async () => {
    const added = await inTransaction(store, (tx) =>
      tx.locations.add(aLocation({ code: 'shop-floor-2', name: 'Shop floor', priority: -3 })),
    );
    expect(added).to.deep.include({ code: 'shop-floor-2', name: 'Shop floor', priority: -3 });
    const { id } = added as Location;
    expect(id).to.be.greaterThan(DEFAULT_LOCATION_ID);
    expect(await store.locations.findById(id)).to.deep.equal(added);
    expect(await store.locations.findById(424242)).to.equal(undefined);
  });

  it('lists by priority, lower first, then by id', async () => {
    const late = await aStoredLocation(store, { priority: 5 });
    const first = await aStoredLocation(store, { priority: -1 });
    const tied = await aStoredLocation(store, { priority: 0 });
    const alsoLate = await aStoredLocation(store, { priority: 5 });
    expect((await store.locations.list()).map((l) => l.id)).to.deep.equal([
      first.id,
      DEFAULT_LOCATION_ID,
      tied.id,
      late.id,
      alsoLate.id,
    ]);
  });

  it('refuses a code that is taken, the default one included, adding nothing', async () => {
    await aStoredLocation(store, { code: 'warehouse' });
    for (const code of ['warehouse', DEFAULT_LOCATION_CODE])
      expect(await inTransaction(store, (tx) => tx.locations.add(aLocation({ code }))), code).to.equal('code-taken');
    expect(await store.locations.list()).to.have.length(2);
  });

  it('removes an empty location once, and never reuses its id', async () => {
    const { id } = await aStoredLocation(store);
    expect(await remove(id)).to.equal('removed');
    expect(await store.locations.findById(id)).to.equal(undefined);
    expect(await remove(id)).to.equal('not-found');
    expect(await remove(424242)).to.equal('not-found');
    expect((await aStoredLocation(store)).id).to.be.greaterThan(id);
  });

  it('removes a location with the empty levels products had there', async () => {
    const { id } = await aStoredLocation(store);
    const product = await aStoredProduct(store, { quantityInStock: 2 });
    await adjustStored(store, product.id, id, 3);
    await adjustStored(store, product.id, id, -3);
    expect(await remove(id)).to.equal('removed');
    expect(await levelsOf(store, product.id)).to.deep.equal([
      {
        locationId: DEFAULT_LOCATION_ID,
        onHand: 2,
        reserved: 0,
        committed: 0,
        qualityControl: 0,
        damaged: 0,
        incoming: 0,
      },
    ]);
  });

  it('refuses to remove a location while a product has stock, holds or incoming units there', async () => {
    /** Each leaves the product's level at `at` holding something, from 1 unit at the default location. */
    const cases: [string, (productId: number, at: number) => Promise<unknown>][] = [
      ['stock', (productId, at) => adjustStored(store, productId, at, 1)],
      [
        'holds',
        async (productId, at) => {
          await adjustStored(store, productId, at, 1);
          await holdStored(store, productId, { quantity: 1, locationId: at });
        },
      ],
      [
        'incoming',
        (productId, at) =>
          saveDecided(store, productId, (stock) =>
            stock.sendTransfer(aTransfer({ productId, toLocationId: at, quantity: 1 }), DEFAULT_STOCK_POLICY),
          ),
      ],
    ];
    for (const [name, makeLevel] of cases) {
      const { id } = await aStoredLocation(store);
      const product = await aStoredProduct(store, { quantityInStock: 1 });
      await makeLevel(product.id, id);
      const levels = await levelsOf(store, product.id);
      expect(await remove(id), name).to.equal('not-empty');
      expect(await store.locations.findById(id), name).to.include({ id });
      expect(await levelsOf(store, product.id), name).to.deep.equal(levels);
    }
  });

  it('refuses to remove a location a transfer in transit left from, whose units would have nowhere to go back to', async () => {
    const { id } = await aStoredLocation(store);
    const product = await aStoredProduct(store, { quantityInStock: 0 });
    const at = new Date();
    const transfer = {
      id: '00000000-0000-4000-8000-0000000000aa',
      productId: product.id,
      fromLocationId: id,
      toLocationId: DEFAULT_LOCATION_ID,
      quantity: 1,
      reference: 'leaving',
      status: 'in-transit' as const,
      createdAt: at,
      updatedAt: at,
    };
    await inTransaction(store, (tx) => tx.transfers.claim(transfer));
    expect(await remove(id)).to.equal('not-empty');
    await inTransaction(store, (tx) => tx.transfers.transition(transfer.id, 'received', new Date()));
    expect(await remove(id)).to.equal('removed');
  });
}
