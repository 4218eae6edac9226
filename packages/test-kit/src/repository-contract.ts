import { Money, Product, type ProductRepository } from '@stock/domain';
import * as chai from 'chai';
import { expect } from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { aProduct } from './builders';

chai.use(chaiAsPromised);

export interface RepositoryUnderTest {
  readonly repository: ProductRepository;
  /** Empties the store between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The behaviour every ProductRepository adapter promises. Each adapter's test
 * file calls this with a way to open one store; `open` may skip the suite.
 */
export function productRepositoryContract(open: (context: Mocha.Context) => Promise<RepositoryUnderTest>): void {
  let store: RepositoryUnderTest;
  let products: ProductRepository;

  before(async function () {
    store = await open(this);
  });
  beforeEach(async () => {
    await store.reset();
    products = store.repository;
  });
  after(async () => store?.close());

  it('assigns increasing ids and answers what it stored', async () => {
    const first = await products.add(aProduct({ name: 'Keyboard' }));
    const second = await products.add(aProduct());
    expect(first).to.be.instanceOf(Product);
    expect(first.id).to.be.a('number').and.to.be.greaterThan(0);
    expect(second.id).to.be.greaterThan(first.id);
    expect(first.name).to.equal('Keyboard');
  });

  it('finds a product by id with every field intact', async () => {
    const details = aProduct({ description: 'ünïcødé ✓', price: Money.fromDecimalString('1234567890.12'), quantityInStock: 2147483647 });
    const { id } = await products.add(details);
    const found = await products.findById(id);
    expect(found?.id).to.equal(id);
    expect(found?.details.name).to.equal(details.name);
    expect(found?.description).to.equal('ünïcødé ✓');
    expect(found?.price.toString()).to.equal('1234567890.12');
    expect(found?.quantityInStock).to.equal(2147483647);
  });

  it('stores money exactly, from zero to the largest amount', async () => {
    for (const amount of ['0.00', '0.01', '0.10', '9999999999999.99']) {
      const { id } = await products.add(aProduct({ price: Money.fromDecimalString(amount) }));
      expect((await products.findById(id))?.price.toString()).to.equal(amount);
    }
  });

  it('answers undefined for an unknown id', async () => {
    expect(await products.findById(2147483647)).to.equal(undefined);
  });

  it('lists in id order, after a given id, up to a limit', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await products.add(aProduct())).id);
    expect((await products.list({ after: 0, limit: 10 })).map((p) => p.id)).to.deep.equal(ids);
    expect((await products.list({ after: ids[1]!, limit: 2 })).map((p) => p.id)).to.deep.equal(ids.slice(2, 4));
    expect(await products.list({ after: ids[4]!, limit: 2 })).to.deep.equal([]);
  });

  it('updates every detail of an existing product', async () => {
    const { id } = await products.add(aProduct());
    const changed = aProduct({ name: 'Renamed', description: '', price: Money.fromDecimalString('0.50'), quantityInStock: 0 });
    const updated = await products.update(id, changed);
    expect(updated?.id).to.equal(id);
    const found = await products.findById(id);
    expect(found?.name).to.equal('Renamed');
    expect(found?.description).to.equal('');
    expect(found?.price.toString()).to.equal('0.50');
    expect(found?.quantityInStock).to.equal(0);
  });

  it('answers undefined when updating a missing product, and creates nothing', async () => {
    expect(await products.update(424242, aProduct())).to.equal(undefined);
    expect(await products.findById(424242)).to.equal(undefined);
  });

  it('removes a product once', async () => {
    const { id } = await products.add(aProduct());
    expect(await products.remove(id)).to.equal(true);
    expect(await products.findById(id)).to.equal(undefined);
    expect(await products.remove(id)).to.equal(false);
  });

  it('never reuses the id of a removed product', async () => {
    const { id } = await products.add(aProduct());
    await products.remove(id);
    expect((await products.add(aProduct())).id).to.be.greaterThan(id);
  });

  it('refuses to hand back a broken product', async () => {
    await expect(products.add({ ...aProduct(), quantityInStock: -1 })).to.be.rejected;
    expect(await products.list({ after: 0, limit: 10 })).to.deep.equal([]);
  });
}
