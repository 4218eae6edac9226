import { InMemoryProductRepository } from '@stock/persistence-memory';
import { aProduct } from '@stock/test-kit';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import sinon from 'sinon';
import {
  AdjustStock,
  CreateProduct,
  DeleteProduct,
  GetProduct,
  InsufficientStockError,
  ListProducts,
  ProductNotFoundError,
  StockLimitExceededError,
  UpdateProduct,
  ValidationError,
  VersionMismatchError,
} from '../src';

chai.use(chaiAsPromised);
const { expect } = chai;

describe('product use cases', () => {
  let products: InMemoryProductRepository;
  beforeEach(() => {
    products = new InMemoryProductRepository();
  });

  describe('CreateProduct', () => {
    it('stores the product with a trimmed name and answers it with its id', async () => {
      const product = await new CreateProduct(products).execute(aProduct({ name: '  Chair  ' }));
      expect(product.name).to.equal('Chair');
      expect(await products.findById(product.id)).to.equal(product);
    });

    it('refuses broken details, naming every field, and stores nothing', async () => {
      const error = await new CreateProduct(products)
        .execute({ ...aProduct(), name: '', description: 'x'.repeat(2001), quantityInStock: -1 })
        .then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(ValidationError);
      expect((error as ValidationError).errors).to.have.all.keys('name', 'description', 'quantityInStock');
      expect(await products.list({ after: 0, limit: 10 })).to.be.empty;
    });

    it('writes through the port once, with the validated details', async () => {
      const add = sinon.spy(products, 'add');
      await new CreateProduct(products).execute(aProduct({ name: ' Lamp ' }));
      sinon.assert.calledOnceWithMatch(add, { name: 'Lamp' });
    });
  });

  describe('GetProduct', () => {
    it('answers the product, or ProductNotFoundError', async () => {
      const created = await products.add(aProduct());
      expect(await new GetProduct(products).execute(created.id)).to.equal(created);
      await expect(new GetProduct(products).execute(999)).to.be.rejectedWith(ProductNotFoundError, 'Product 999 does not exist.');
    });
  });

  describe('UpdateProduct', () => {
    it('replaces the details of an existing product', async () => {
      const { id } = await products.add(aProduct());
      const updated = await new UpdateProduct(products).execute(id, aProduct({ name: 'New name', quantityInStock: 3 }));
      expect(updated).to.include({ id, name: 'New name', quantityInStock: 3 });
      expect((await products.findById(id))?.name).to.equal('New name');
    });

    it('throws ProductNotFoundError for a missing product', async () => {
      await expect(new UpdateProduct(products).execute(7, aProduct())).to.be.rejectedWith(ProductNotFoundError);
    });

    it('validates before it touches the store', async () => {
      const { id } = await products.add(aProduct({ name: 'Kept' }));
      await expect(new UpdateProduct(products).execute(id, aProduct({ name: '   ' }))).to.be.rejectedWith(ValidationError);
      expect((await products.findById(id))?.name).to.equal('Kept');
    });
  });

  describe('UpdateProduct with an expected version', () => {
    it('updates at that version and refuses any other', async () => {
      const { id } = await products.add(aProduct());
      const update = new UpdateProduct(products);
      const error = await update.execute(id, aProduct(), 5).then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(VersionMismatchError).and.to.include({ productId: id, currentVersion: 1, code: 'VERSION_MISMATCH' });
      expect((await update.execute(id, aProduct(), 1)).version).to.equal(2);
    });
  });

  describe('AdjustStock', () => {
    it('adds the delta and answers the product at its next version', async () => {
      const { id } = await products.add(aProduct({ quantityInStock: 5 }));
      const product = await new AdjustStock(products).execute(id, { delta: -2, reason: 'sale' });
      expect(product).to.include({ quantityInStock: 3, version: 2 });
    });

    it('names the bound an adjustment would break, with the stock available, and changes nothing', async () => {
      const { id } = await products.add(aProduct({ quantityInStock: 5 }));
      const adjust = new AdjustStock(products);
      await expect(adjust.execute(id, { delta: -6 })).to.be.rejectedWith(InsufficientStockError).and.eventually.include({ available: 5, code: 'INSUFFICIENT_STOCK' });
      await expect(adjust.execute(id, { delta: 2147483647 })).to.be.rejectedWith(StockLimitExceededError).and.eventually.include({ available: 5 });
      expect((await products.findById(id))?.quantityInStock).to.equal(5);
    });

    it('refuses a delta that is 0, fractional or past int32, and a reason over 200 characters', async () => {
      const { id } = await products.add(aProduct());
      const adjust = new AdjustStock(products);
      for (const delta of [0, 1.5, 2147483648, -2147483649, Number.NaN]) {
        await expect(adjust.execute(id, { delta }), String(delta)).to.be.rejectedWith(ValidationError);
      }
      await expect(adjust.execute(id, { delta: 1, reason: 'x'.repeat(201) })).to.be.rejectedWith(ValidationError);
    });

    it('throws ProductNotFoundError for a missing product', async () => {
      await expect(new AdjustStock(products).execute(99, { delta: 1 })).to.be.rejectedWith(ProductNotFoundError);
    });
  });

  describe('DeleteProduct', () => {
    it('removes the product, then reports it missing', async () => {
      const { id } = await products.add(aProduct());
      await new DeleteProduct(products).execute(id);
      expect(await products.findById(id)).to.equal(undefined);
      await expect(new DeleteProduct(products).execute(id)).to.be.rejectedWith(ProductNotFoundError);
    });
  });

  describe('ListProducts', () => {
    it('answers a page and where the next one starts', async () => {
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push((await products.add(aProduct())).id);
      const list = new ListProducts(products);
      const first = await list.page({ after: 0, limit: 2 });
      expect(first.items.map((p) => p.id)).to.deep.equal(ids.slice(0, 2));
      expect(first.nextAfter).to.equal(ids[1]);
      const last = await list.page({ after: ids[2]!, limit: 2 });
      expect(last.items.map((p) => p.id)).to.deep.equal(ids.slice(3));
      expect(last).not.to.have.property('nextAfter');
    });

    it('walks every product in bounded batches', async () => {
      for (let i = 0; i < 7; i++) await products.add(aProduct());
      const list = sinon.spy(products, 'list');
      const batches = [];
      for await (const batch of new ListProducts(products).all(3)) batches.push(batch.map((p) => p.id));
      expect(batches).to.deep.equal([[1, 2, 3], [4, 5, 6], [7]]);
      expect(list.args.map(([query]) => query.limit)).to.deep.equal([3, 3, 3]);
    });

    it('yields nothing for an empty store', async () => {
      const batches = [];
      for await (const batch of new ListProducts(products).all()) batches.push(batch);
      expect(batches).to.deep.equal([]);
    });
  });
});
