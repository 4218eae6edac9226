import type { ProductRepository } from '@stock/domain';
import { Money, Product } from '@stock/domain';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { aContext, aProduct } from './builders';
import type { OpenStockStore, StockStoreUnderTest } from './stock-store';

chai.use(chaiAsPromised);
const { expect } = chai;

/**
 * The behaviour every ProductRepository adapter promises, read outside any
 * unit of work and written inside one (as a transaction, and as a single call
 * where the store may skip the transaction).
 */
export function productRepositoryContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  let products: ProductRepository;
  const write = <T>(call: (products: ProductRepository) => Promise<T>, singleCall = true) =>
    store.unitOfWork.run((tx) => call(tx.products), { singleCall });

  before(async function () {
    store = await open(this, Date.now);
  });
  beforeEach(async () => {
    await store.reset();
    products = store.products;
  });
  after(async () => store?.close());

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
    });
    const { id } = await write((p) => p.add(details, aContext()));
    const found = await products.findById(id);
    expect(found?.id).to.equal(id);
    expect(found?.name).to.equal(details.name);
    expect(found?.description).to.equal('ünïcødé ✓');
    expect(found?.price.toString()).to.equal('1234567890.12');
    expect(found?.quantityInStock).to.equal(2147483647);
  });

  it('stores money exactly, from zero to the largest amount', async () => {
    for (const amount of ['0.00', '0.01', '0.10', '9999999999999.99']) {
      const { id } = await write((p) => p.add(aProduct({ price: Money.fromDecimalString(amount) }), aContext()));
      expect((await products.findById(id))?.price.toString()).to.equal(amount);
    }
  });

  it('answers undefined for an unknown id', async () => {
    expect(await products.findById(2147483647)).to.equal(undefined);
  });

  it('lists in id order, after a given id, up to a limit', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await write((p) => p.add(aProduct(), aContext()))).id);
    expect((await products.list({ after: 0, limit: 10 })).map((p) => p.id)).to.deep.equal(ids);
    expect((await products.list({ after: ids[1]!, limit: 2 })).map((p) => p.id)).to.deep.equal(ids.slice(2, 4));
    expect(await products.list({ after: ids[4]!, limit: 2 })).to.deep.equal([]);
  });

  it('updates every detail of an existing product', async () => {
    const { id } = await write((p) => p.add(aProduct(), aContext()));
    const changed = aProduct({
      name: 'Renamed',
      description: '',
      price: Money.fromDecimalString('0.50'),
      quantityInStock: 0,
    });
    const updated = await write((p) => p.update(id, changed, undefined, aContext()));
    expect(updated.status === 'updated' && updated.product.id).to.equal(id);
    const found = await products.findById(id);
    expect(found?.name).to.equal('Renamed');
    expect(found?.description).to.equal('');
    expect(found?.price.toString()).to.equal('0.50');
    expect(found?.quantityInStock).to.equal(0);
  });

  it('answers not-found when updating a missing product, and creates nothing', async () => {
    expect(await write((p) => p.update(424242, aProduct(), undefined, aContext()))).to.deep.equal({
      status: 'not-found',
    });
    expect(await products.findById(424242)).to.equal(undefined);
  });

  it('removes a product once', async () => {
    const { id } = await write((p) => p.add(aProduct(), aContext()));
    expect(await write((p) => p.remove(id))).to.deep.equal({ status: 'removed' });
    expect(await products.findById(id)).to.equal(undefined);
    expect(await write((p) => p.remove(id))).to.deep.equal({ status: 'not-found' });
  });

  it('never reuses the id of a removed product', async () => {
    const { id } = await write((p) => p.add(aProduct(), aContext()));
    await write((p) => p.remove(id));
    expect((await write((p) => p.add(aProduct(), aContext()))).id).to.be.greaterThan(id);
  });

  it('starts every product at version 1 and moves it on with every write', async () => {
    const created = await write((p) => p.add(aProduct(), aContext()));
    expect(created.version).to.equal(1);
    const updated = await write((p) => p.update(created.id, aProduct(), undefined, aContext()));
    expect(updated.status === 'updated' && updated.product.version).to.equal(2);
    const adjusted = await write((p) => p.adjustStock(created.id, 5, aContext()));
    expect(adjusted.status === 'adjusted' && adjusted.product.version).to.equal(3);
    expect((await products.findById(created.id))?.version).to.equal(3);
  });

  it('updates only at the expected version, when one is given', async () => {
    const { id } = await write((p) => p.add(aProduct({ name: 'Original' }), aContext()));
    expect(await write((p) => p.update(id, aProduct({ name: 'Stale' }), 7, aContext()))).to.deep.equal({
      status: 'version-mismatch',
      currentVersion: 1,
    });
    expect((await products.findById(id))?.name).to.equal('Original');
    const updated = await write((p) => p.update(id, aProduct({ name: 'Fresh' }), 1, aContext()));
    expect(updated.status === 'updated' && updated.product).to.include({ name: 'Fresh', version: 2 });
    expect(await write((p) => p.update(424242, aProduct(), 1, aContext()))).to.deep.equal({ status: 'not-found' });
  });

  it('adjusts stock up and down, down to exactly 0', async () => {
    const { id } = await write((p) => p.add(aProduct({ quantityInStock: 10 }), aContext()));
    const restocked = await write((p) => p.adjustStock(id, 5, aContext()));
    expect(restocked.status === 'adjusted' && restocked.product.quantityInStock).to.equal(15);
    const emptied = await write((p) => p.adjustStock(id, -15, aContext()));
    expect(emptied.status === 'adjusted' && emptied.product.quantityInStock).to.equal(0);
  });

  it('refuses an adjustment that would leave the stock out of bounds, naming the bound, changing nothing', async () => {
    const { id } = await write((p) => p.add(aProduct({ quantityInStock: 3 }), aContext()));
    for (const singleCall of [true, false]) {
      expect(await write((p) => p.adjustStock(id, -4, aContext()), singleCall)).to.deep.equal({
        status: 'below-minimum',
        available: 3,
      });
      expect(await write((p) => p.adjustStock(id, 2147483647, aContext()), singleCall)).to.deep.equal({
        status: 'above-maximum',
        available: 3,
      });
      expect(await write((p) => p.adjustStock(id, -2147483648, aContext()), singleCall)).to.deep.equal({
        status: 'below-minimum',
        available: 3,
      });
    }
    expect(await products.findById(id)).to.include({ quantityInStock: 3, version: 1 });
    expect(await write((p) => p.adjustStock(424242, 1, aContext()))).to.deep.equal({ status: 'not-found' });
  });

  it('settles a hold, and refuses to settle more than is held, changing nothing', async () => {
    const { id } = await write((p) => p.add(aProduct({ quantityInStock: 5 }), aContext()));
    await write((p) => p.hold(id, 3, aContext()));
    for (const settlement of ['committed', 'released', 'expired'] as const)
      expect(await write((p) => p.settle(id, 4, settlement, aContext())), settlement).to.equal(undefined);
    expect(await write((p) => p.settle(2147483000, 1, 'released', aContext())), 'a missing product').to.equal(
      undefined,
    );
    expect(await products.findById(id)).to.include({ quantityInStock: 5, reservedQuantity: 3, version: 2 });
    expect(await write((p) => p.settle(id, 2, 'committed', aContext()))).to.include({
      quantityInStock: 3,
      reservedQuantity: 1,
      version: 3,
    });
    expect(await write((p) => p.settle(id, 1, 'released', aContext()))).to.include({
      quantityInStock: 3,
      reservedQuantity: 0,
      version: 4,
    });
  });

  it('reaches the largest stock exactly', async () => {
    const { id } = await write((p) => p.add(aProduct({ quantityInStock: 2147483640 }), aContext()));
    const full = await write((p) => p.adjustStock(id, 7, aContext()));
    expect(full.status === 'adjusted' && full.product.quantityInStock).to.equal(2147483647);
    expect(await write((p) => p.adjustStock(id, 1, aContext()))).to.deep.equal({
      status: 'above-maximum',
      available: 2147483647,
    });
  });

  for (const singleCall of [true, false]) {
    it(`loses no concurrent adjustment and never goes below 0 (${singleCall ? 'single calls' : 'transactions'})`, async () => {
      const { id } = await write((p) => p.add(aProduct({ quantityInStock: 50 }), aContext()));
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, () => write((p) => p.adjustStock(id, -1, aContext()), singleCall)),
      );
      expect(outcomes.filter((o) => o.status === 'adjusted')).to.have.length(50);
      expect(outcomes.filter((o) => o.status === 'below-minimum')).to.have.length(50);
      expect((await products.findById(id))?.quantityInStock).to.equal(0);
    });
  }

  it('lets exactly one of several updates at the same version win', async () => {
    const { id } = await write((p) => p.add(aProduct(), aContext()));
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        write((p) => p.update(id, aProduct({ name: `Writer ${i}` }), 1, aContext())),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'updated')).to.have.length(1);
    expect(outcomes.filter((o) => o.status === 'version-mismatch')).to.have.length(9);
  });
}
