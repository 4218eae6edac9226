import type { ProductRepository } from '../src';
import { DEFAULT_LOCATION_ID, Money, Product, SkuTakenError } from '../src';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { aContext, aProduct } from './builders';
import {
  adjustStored,
  aStoredLocation,
  aStoredProduct,
  holdStored,
  levelsOf,
  movementsOf,
  removeStored,
} from './stock-fixtures';
import { onOneStore, type OpenStockStore, type StockStoreUnderTest } from './stock-store';

chai.use(chaiAsPromised);
const { expect } = chai;

/**
 * The behaviour every ProductRepository adapter promises, read outside any
 * unit of work and written inside one (as a transaction, and as a single call
 * where the store may skip the transaction). Its stock moves through
 * ProductStockRepository, as the ProductStock aggregate decides (here only to
 * set the scene), except when it is added.
 */
export function productRepositoryContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  let products: ProductRepository;
  const write = <T>(call: (products: ProductRepository) => Promise<T>, singleCall = true) =>
    store.unitOfWork.run((tx) => call(tx.products), { singleCall });

  onOneStore(
    open,
    (opened) => (store = opened),
    () => {
      products = store.products;
    },
  );

  it('assigns increasing ids and answers what it stored', async () => {
    const first = await write((p) => p.add(aProduct({ name: 'Keyboard' }), aContext()));
    const second = await write((p) => p.add(aProduct(), aContext()));
    expect(first).to.be.instanceOf(Product);
    expect(first.id).to.be.a('number').and.to.be.greaterThan(0);
    expect(second.id).to.be.greaterThan(first.id);
    expect(first.name).to.equal('Keyboard');
  });

  it('finds a product by id with every field intact', async () => {
    const details = aProduct({
      description: 'ünïcødé ✓',
      price: Money.fromDecimalString('1234567890.12'),
      quantityInStock: 2147483647,
      backorderLimit: 2147483647,
      lowStockThreshold: 7,
    });
    const { id } = await write((p) => p.add(details, aContext()));
    const found = await products.findById(id);
    expect(found?.id).to.equal(id);
    expect(found?.name).to.equal(details.name);
    expect(found?.description).to.equal('ünïcødé ✓');
    expect(found?.price.toString()).to.equal('1234567890.12');
    expect(found).to.include({
      quantityInStock: 2147483647,
      reservedQuantity: 0,
      backorderLimit: 2147483647,
      lowStockThreshold: 7,
      backorderedQuantity: 0,
    });
    expect(found?.stock.lowStockAlert).to.equal(false);
  });

  it('adds a product with its settings at 0 when absent, at version 1', async () => {
    const added = await write((p) => p.add(aProduct({ quantityInStock: 4 }), aContext()));
    for (const product of [added, (await products.findById(added.id))!])
      expect(product).to.include({
        version: 1,
        quantityInStock: 4,
        reservedQuantity: 0,
        backorderLimit: 0,
        lowStockThreshold: 0,
        backorderedQuantity: 0,
        availableQuantity: 4,
        stockState: 'in',
      });
  });

  it('puts a new product’s stock at the default location, with one created movement there', async () => {
    const context = aContext({ reason: 'first delivery', requestId: 'req-1', actor: 'shop-a' });
    const { id } = await write((p) => p.add(aProduct({ quantityInStock: 12 }), context));
    expect(await levelsOf(store, id)).to.deep.equal([
      {
        locationId: DEFAULT_LOCATION_ID,
        onHand: 12,
        reserved: 0,
        committed: 0,
        qualityControl: 0,
        damaged: 0,
        incoming: 0,
      },
    ]);
    const movements = await movementsOf(store, id);
    expect(movements).to.have.length(1);
    expect(movements[0]).to.include({
      productId: id,
      locationId: DEFAULT_LOCATION_ID,
      kind: 'created',
      quantityDelta: 12,
      reservedDelta: 0,
      quantityAfter: 12,
      reservedAfter: 0,
      reason: 'first delivery',
      requestId: 'req-1',
      actor: 'shop-a',
    });
    expect(movements[0]!.transferId).to.equal(undefined);
    expect(movements[0]!.at.getTime()).to.equal(context.at.getTime());
  });

  it('gives a product added with no stock its level at the default location all the same', async () => {
    const { id } = await write((p) => p.add(aProduct({ quantityInStock: 0 }), aContext()));
    expect(await levelsOf(store, id)).to.deep.equal([
      {
        locationId: DEFAULT_LOCATION_ID,
        onHand: 0,
        reserved: 0,
        committed: 0,
        qualityControl: 0,
        damaged: 0,
        incoming: 0,
      },
    ]);
    expect((await movementsOf(store, id)).map((m) => m.kind)).to.deep.equal(['created']);
  });

  it('stores money exactly, from zero to the largest amount', async () => {
    for (const amount of ['0.00', '0.01', '0.10', '9999999999999.99']) {
      const { id } = await write((p) => p.add(aProduct({ price: Money.fromDecimalString(amount) }), aContext()));
      expect((await products.findById(id))?.price.toString()).to.equal(amount);
    }
  });

  it('adds a batch as `add` adds each, answering them in the order given, with their levels and created movements', async () => {
    const added = await write((p) =>
      p.addMany(
        [
          aProduct({ name: 'First', quantityInStock: 0, sku: 'BATCH-1', lowStockThreshold: 2 }),
          aProduct({ name: 'Second', quantityInStock: 4 }),
        ],
        aContext(),
      ),
    );
    expect(added.map(({ name, sku, version }) => [name, sku, version])).to.deep.equal([
      ['First', 'BATCH-1', 1],
      ['Second', null, 1],
    ]);
    expect(added[1]!.id).to.be.greaterThan(added[0]!.id);
    expect(added[0]!.lowStockThreshold).to.equal(2);
    expect(await products.findById(added[1]!.id)).to.deep.equal(added[1]);
    expect(await levelsOf(store, added[1]!.id)).to.deep.equal([
      {
        locationId: DEFAULT_LOCATION_ID,
        onHand: 4,
        reserved: 0,
        committed: 0,
        qualityControl: 0,
        damaged: 0,
        incoming: 0,
      },
    ]);
    expect((await movementsOf(store, added[0]!.id)).map(({ kind }) => kind)).to.deep.equal(['created']);
    expect(await write((p) => p.addMany([], aContext()))).to.deep.equal([]);
  });

  it('adds none of a batch when one of its SKUs is taken, ignoring case: SkuTakenError', async () => {
    await write((p) => p.add(aProduct({ sku: 'TAKEN-1' }), aContext()));
    const batch = [aProduct({ name: 'Fine' }), aProduct({ name: 'Clash', sku: 'taken-1' })];
    await expect(write((p) => p.addMany(batch, aContext()), false)).to.be.rejectedWith(SkuTakenError);
    expect((await products.list({ after: 0, limit: 10 })).map(({ name }) => name)).to.not.include('Fine');
  });

  it('finds many by SKU ignoring case, in id order, each once', async () => {
    const a = await write((p) => p.add(aProduct({ sku: 'Find-A' }), aContext()));
    const b = await write((p) => p.add(aProduct({ sku: 'FIND-B' }), aContext()));
    const found = await products.findManyBySku(['find-b', 'FIND-A', 'find-a', 'none']);
    expect(found.map(({ id }) => id)).to.deep.equal([a.id, b.id]);
    expect(await products.findManyBySku([])).to.deep.equal([]);
  });

  it('updates the details of a batch at their versions, leaving out a product at another version or missing', async () => {
    const a = await write((p) => p.add(aProduct({ name: 'A', quantityInStock: 3, lowStockThreshold: 1 }), aContext()));
    const b = await write((p) => p.add(aProduct({ name: 'B', sku: 'UPD-B' }), aContext()));
    const updated = await write((p) =>
      p.updateDetailsMany([
        { id: b.id, details: aProduct({ name: 'B2', quantityInStock: 0 }), expectedVersion: 1 },
        { id: a.id, details: aProduct({ name: 'A2', sku: 'UPD-A', quantityInStock: 0 }), expectedVersion: 1 },
        { id: 424242, details: aProduct({ name: 'None' }), expectedVersion: 1 },
      ]),
    );
    expect(updated.map(({ id, name, version }) => [id, name, version])).to.deep.equal([
      [b.id, 'B2', 2],
      [a.id, 'A2', 2],
    ]);
    const stored = await products.findById(a.id);
    expect(stored).to.include({ sku: 'UPD-A', quantityInStock: 3, lowStockThreshold: 1, version: 2 });
    expect(await products.findById(b.id)).to.include({ sku: 'UPD-B', name: 'B2' });
    const stale = await write((p) =>
      p.updateDetailsMany([{ id: a.id, details: aProduct({ name: 'Late' }), expectedVersion: 1 }]),
    );
    expect(stale).to.deep.equal([]);
    expect(await products.findById(a.id)).to.include({ name: 'A2', version: 2 });
    await expect(
      write((p) => p.updateDetailsMany([{ id: a.id, details: aProduct({ sku: 'upd-b' }), expectedVersion: 2 }]), false),
    ).to.be.rejectedWith(SkuTakenError);
  });

  it('answers undefined for an unknown id', async () => {
    expect(await products.findById(2147483647)).to.equal(undefined);
  });

  it('finds many by id: those that exist, once each, in id order', async () => {
    const a = await aStoredProduct(store);
    const b = await aStoredProduct(store);
    expect((await products.findMany([b.id, 424242, a.id, b.id])).map((p) => p.id)).to.deep.equal([a.id, b.id]);
    expect(await products.findMany([])).to.deep.equal([]);
  });

  it('lists in id order, after a given id, up to a limit', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await write((p) => p.add(aProduct(), aContext()))).id);
    expect((await products.list({ after: 0, limit: 10 })).map((p) => p.id)).to.deep.equal(ids);
    expect((await products.list({ after: ids[1]!, limit: 2 })).map((p) => p.id)).to.deep.equal(ids.slice(2, 4));
    expect(await products.list({ after: ids[4]!, limit: 2 })).to.deep.equal([]);
  });

  it('lists only the products in the stock state asked for, a page at a time', async () => {
    const out = await aStoredProduct(store, { quantityInStock: 0, lowStockThreshold: 5 });
    const low = await aStoredProduct(store, { quantityInStock: 4, lowStockThreshold: 5 });
    const atThreshold = await aStoredProduct(store, { quantityInStock: 5, lowStockThreshold: 5 });
    const noThreshold = await aStoredProduct(store, { quantityInStock: 1 });
    const heldLow = await aStoredProduct(store, { quantityInStock: 10, lowStockThreshold: 5 });
    await holdStored(store, heldLow.id, { quantity: 6 });
    const backorderedOut = await aStoredProduct(store, { quantityInStock: 2, backorderLimit: 5 });
    await holdStored(store, backorderedOut.id, { quantity: 3, allowBackorder: true });
    const lowAgain = await aStoredProduct(store, { quantityInStock: 1, lowStockThreshold: 2 });
    const ids = async (stockState: 'in' | 'low' | 'out', after = 0, limit = 10) =>
      (await products.list({ after, limit, stockState })).map((p) => p.id);
    expect(await ids('out')).to.deep.equal([out.id, backorderedOut.id]);
    expect(await ids('low')).to.deep.equal([low.id, heldLow.id, lowAgain.id]);
    expect(await ids('in')).to.deep.equal([atThreshold.id, noThreshold.id]);
    expect(await ids('low', low.id, 1)).to.deep.equal([heldLow.id]);
    expect((await products.findById(backorderedOut.id))?.availableQuantity).to.equal(-1);
  });

  it('updates the details of an existing product, leaving its stock as it is', async () => {
    const { id } = await write((p) => p.add(aProduct({ quantityInStock: 6 }), aContext()));
    const changed = aProduct({
      name: 'Renamed',
      description: '',
      price: Money.fromDecimalString('0.50'),
      quantityInStock: 0,
      backorderLimit: 3,
      lowStockThreshold: 2,
    });
    const updated = await write((p) => p.updateDetails(id, changed, undefined));
    expect(updated.status === 'updated' && updated.product.id).to.equal(id);
    const found = await products.findById(id);
    expect(found?.name).to.equal('Renamed');
    expect(found?.description).to.equal('');
    expect(found?.price.toString()).to.equal('0.50');
    expect(found).to.include({ quantityInStock: 6, backorderLimit: 3, lowStockThreshold: 2 });
    expect(updated.status === 'updated' && updated.product).to.include({ quantityInStock: 6, backorderLimit: 3 });
    expect(await levelsOf(store, id)).to.deep.equal([
      {
        locationId: DEFAULT_LOCATION_ID,
        onHand: 6,
        reserved: 0,
        committed: 0,
        qualityControl: 0,
        damaged: 0,
        incoming: 0,
      },
    ]);
    expect(
      (await movementsOf(store, id)).map((m) => m.kind),
      'no movement',
    ).to.deep.equal(['created']);
  });

  it('keeps each setting an update leaves out, and keeps the stock state', async () => {
    const { id } = await aStoredProduct(store, { quantityInStock: 8, backorderLimit: 4, lowStockThreshold: 9 });
    // All 8 held and 1 backordered: nothing available, below the threshold, so alerted.
    await holdStored(store, id, { quantity: 9, allowBackorder: true });
    const updated = await write((p) => p.updateDetails(id, aProduct({ name: 'Kept' }), undefined));
    const found = (await products.findById(id))!;
    for (const product of [updated.status === 'updated' && updated.product, found])
      expect(product).to.include({
        name: 'Kept',
        backorderLimit: 4,
        lowStockThreshold: 9,
        quantityInStock: 8,
        reservedQuantity: 8,
        backorderedQuantity: 1,
      });
    expect(found.stock.lowStockAlert).to.equal(true);
    await write((p) => p.updateDetails(id, aProduct({ backorderLimit: 0 }), undefined));
    expect(await products.findById(id), 'a limit lowered below what is backordered').to.include({
      backorderLimit: 0,
      lowStockThreshold: 9,
      backorderedQuantity: 1,
    });
  });

  it('answers not-found when updating a missing product, and creates nothing', async () => {
    expect(await write((p) => p.updateDetails(424242, aProduct(), undefined))).to.deep.equal({
      status: 'not-found',
    });
    expect(await products.findById(424242)).to.equal(undefined);
  });

  it('removes a product at its version, with its levels at every location; its ledger stays, as history', async () => {
    const { id } = await aStoredProduct(store, { quantityInStock: 3 });
    const second = await aStoredLocation(store);
    await adjustStored(store, id, second.id, 4);
    const ledger = await movementsOf(store, id);
    expect(ledger.map(({ kind }) => kind)).to.deep.equal(['created', 'adjusted']);
    expect(await removeStored(store, id, 2)).to.equal(true);
    expect(await products.findById(id)).to.equal(undefined);
    expect(await store.stock.list(id)).to.equal(undefined);
    expect(await movementsOf(store, id)).to.deep.equal(ledger);
  });

  it('removes nothing at a version the product is not at, nor a product that is not there', async () => {
    const { id } = await aStoredProduct(store, { quantityInStock: 3 });
    await adjustStored(store, id, DEFAULT_LOCATION_ID, 1);
    const before = { product: await products.findById(id), levels: await levelsOf(store, id) };
    for (const version of [1, 3])
      expect(await removeStored(store, id, version), `at version ${version}`).to.equal(false);
    expect({ product: await products.findById(id), levels: await levelsOf(store, id) }).to.deep.equal(before);
    expect(await removeStored(store, id, 2), 'at its version').to.equal(true);
    expect(await removeStored(store, id, 2), 'once removed').to.equal(false);
    expect(await removeStored(store, 424242, 1)).to.equal(false);
  });

  it('never reuses the id of a removed product', async () => {
    const { id } = await write((p) => p.add(aProduct(), aContext()));
    expect(await removeStored(store, id)).to.equal(true);
    expect((await write((p) => p.add(aProduct(), aContext()))).id).to.be.greaterThan(id);
  });

  it('starts every product at version 1 and moves it on with every write', async () => {
    const created = await write((p) => p.add(aProduct(), aContext()));
    expect(created.version).to.equal(1);
    const updated = await write((p) => p.updateDetails(created.id, aProduct(), undefined));
    expect(updated.status === 'updated' && updated.product.version).to.equal(2);
    const adjusted = await adjustStored(store, created.id, DEFAULT_LOCATION_ID, 5);
    expect(adjusted.version).to.equal(3);
    expect((await products.findById(created.id))?.version).to.equal(3);
  });

  it('updates only at the expected version, when one is given', async () => {
    const { id } = await write((p) => p.add(aProduct({ name: 'Original' }), aContext()));
    expect(await write((p) => p.updateDetails(id, aProduct({ name: 'Stale' }), 7))).to.deep.equal({
      status: 'version-mismatch',
      currentVersion: 1,
    });
    expect((await products.findById(id))?.name).to.equal('Original');
    const updated = await write((p) => p.updateDetails(id, aProduct({ name: 'Fresh' }), 1));
    expect(updated.status === 'updated' && updated.product).to.include({ name: 'Fresh', version: 2 });
    expect(await write((p) => p.updateDetails(424242, aProduct(), 1))).to.deep.equal({ status: 'not-found' });
  });

  it('lets exactly one of several updates at the same version win', async () => {
    const { id } = await write((p) => p.add(aProduct(), aContext()));
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => write((p) => p.updateDetails(id, aProduct({ name: `Writer ${i}` }), 1))),
    );
    expect(outcomes.filter((o) => o.status === 'updated')).to.have.length(1);
    expect(outcomes.filter((o) => o.status === 'version-mismatch')).to.have.length(9);
  });
}
