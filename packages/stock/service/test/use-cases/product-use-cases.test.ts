import { IdempotencyKeyReusedError } from '@platform/kernel';
import {
  AdjustStock,
  CreateProduct,
  DeleteProduct,
  GetProduct,
  GetProducts,
  ListProducts,
  StreamProducts,
  UpdateProduct,
} from '@stock/application';
import {
  InsufficientStockError,
  ProductNotFoundError,
  StockAdjustment,
  StockLimitExceededError,
  VersionMismatchError,
} from '@stock/domain';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import sinon from 'sinon';
import { aProduct, onOneStore, type OpenStockStore, type StockStoreUnderTest } from '@stock/domain/testing';
import { STORES } from './stores';

chai.use(chaiAsPromised);
const { expect } = chai;

/** The product use cases on a store: what they answer, what they refuse, and the transactions they open. */
function productUseCases(open: OpenStockStore): void {
  let store: StockStoreUnderTest;
  const clock = () => new Date();
  const key = (scope: string, fingerprint = 'f') => ({ scope, key: `k-${Math.random()}`, fingerprint });
  const added = (stock = 10) =>
    new CreateProduct(store.unitOfWork, clock).execute(aProduct({ quantityInStock: stock })).then((r) => r.value);

  onOneStore(open, (opened) => (store = opened));

  describe('CreateProduct', () => {
    it('stores the product and answers it with its id', async () => {
      const { value: product, replayed } = await new CreateProduct(store.unitOfWork, clock).execute(
        aProduct({ name: '  Chair  ' }),
      );
      expect(product.name).to.equal('Chair');
      expect(replayed).to.equal(false);
      expect(await store.products.findById(product.id)).to.deep.equal(product);
    });

    it('creates once per idempotency key, answering the repeat with the same product', async () => {
      const create = new CreateProduct(store.unitOfWork, clock);
      const idempotency = key('create-product');
      const first = await create.execute(aProduct(), { idempotency });
      const repeat = await create.execute(aProduct(), { idempotency });
      expect(repeat).to.deep.equal({ value: first.value, replayed: true });
      expect(await store.products.list({ after: 0, limit: 10 })).to.have.length(1);
      await expect(
        create.execute(aProduct(), { idempotency: { ...idempotency, fingerprint: 'other' } }),
      ).to.be.rejectedWith(IdempotencyKeyReusedError);
    });

    it('opens no transaction around its one insert without a key, and a transaction with one', async () => {
      const run = sinon.spy(store.unitOfWork, 'run');
      try {
        await new CreateProduct(store.unitOfWork, clock).execute(aProduct());
        await new CreateProduct(store.unitOfWork, clock).execute(aProduct(), { idempotency: key('create-product') });
        expect(run.args.map(([, options]) => options?.singleCall ?? false)).to.deep.equal([true, false]);
      } finally {
        run.restore();
      }
    });
  });

  describe('GetProduct and GetProducts', () => {
    it('answers the product, or ProductNotFoundError', async () => {
      const created = await added();
      expect(await new GetProduct(store.products).execute(created.id)).to.deep.equal(created);
      await expect(new GetProduct(store.products).execute(999)).to.be.rejectedWith(
        ProductNotFoundError,
        'Product 999 does not exist.',
      );
    });

    it('answers the products that exist among several ids, in id order, once each', async () => {
      const [a, b, c] = [await added(), await added(), await added()];
      const found = await new GetProducts(store.products).execute([c.id, 2147483647, a.id, c.id]);
      expect(found.map((p) => p.id)).to.deep.equal([a.id, c.id]);
      expect(b.id).to.be.greaterThan(a.id);
    });
  });

  describe('UpdateProduct', () => {
    it('replaces the details of an existing product', async () => {
      const { id } = await added();
      const updated = await new UpdateProduct(store.unitOfWork, clock).execute(
        id,
        aProduct({ name: 'New name', quantityInStock: 3 }),
      );
      expect(updated).to.include({ id, name: 'New name', quantityInStock: 3 });
      expect((await store.products.findById(id))?.name).to.equal('New name');
    });

    it('throws ProductNotFoundError for a missing product', async () => {
      await expect(new UpdateProduct(store.unitOfWork, clock).execute(2147483000, aProduct())).to.be.rejectedWith(
        ProductNotFoundError,
      );
    });

    it('updates at the expected version and refuses any other', async () => {
      const { id } = await added();
      const update = new UpdateProduct(store.unitOfWork, clock);
      const error = await update.execute(id, aProduct(), { expectedVersion: 5 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error)
        .to.be.instanceOf(VersionMismatchError)
        .and.to.include({ productId: id, currentVersion: 1, code: 'VERSION_MISMATCH' });
      expect((await update.execute(id, aProduct(), { expectedVersion: 1 })).version).to.equal(2);
    });
  });

  describe('AdjustStock', () => {
    it('adds the delta and answers the product at its next version', async () => {
      const { id } = await added(5);
      const { value } = await new AdjustStock(store.unitOfWork, clock).execute(
        id,
        StockAdjustment.create({ delta: -2, reason: 'sale' }),
      );
      expect(value).to.include({ quantityInStock: 3, version: 2 });
    });

    it('names the bound an adjustment would break, with the stock available, and changes nothing', async () => {
      const { id } = await added(5);
      const adjust = new AdjustStock(store.unitOfWork, clock);
      await expect(adjust.execute(id, StockAdjustment.create({ delta: -6 })))
        .to.be.rejectedWith(InsufficientStockError)
        .and.eventually.include({ available: 5, code: 'INSUFFICIENT_STOCK' });
      await expect(adjust.execute(id, StockAdjustment.create({ delta: 2147483647 })))
        .to.be.rejectedWith(StockLimitExceededError)
        .and.eventually.include({ available: 5 });
      expect((await store.products.findById(id))?.quantityInStock).to.equal(5);
    });

    it('adjusts once per idempotency key, and records nothing when the adjustment is refused', async () => {
      const { id } = await added(5);
      const adjust = new AdjustStock(store.unitOfWork, clock);
      const idempotency = key('adjust-stock');
      await adjust.execute(id, StockAdjustment.create({ delta: -2 }), { idempotency });
      expect((await adjust.execute(id, StockAdjustment.create({ delta: -2 }), { idempotency })).replayed).to.equal(
        true,
      );
      expect((await store.products.findById(id))?.quantityInStock).to.equal(3);
      const refused = key('adjust-stock');
      await expect(
        adjust.execute(id, StockAdjustment.create({ delta: -9 }), { idempotency: refused }),
      ).to.be.rejectedWith(InsufficientStockError);
      await expect(
        adjust.execute(id, StockAdjustment.create({ delta: -1 }), { idempotency: refused }),
      ).to.eventually.include({ replayed: false });
    });

    it('throws ProductNotFoundError for a missing product', async () => {
      await expect(
        new AdjustStock(store.unitOfWork, clock).execute(2147483000, StockAdjustment.create({ delta: 1 })),
      ).to.be.rejectedWith(ProductNotFoundError);
    });

    it('makes a plain change in one statement where the store can, and one with a key in a transaction', async () => {
      const { id } = await added(5);
      const run = sinon.spy(store.unitOfWork, 'run');
      try {
        await new AdjustStock(store.unitOfWork, clock).execute(id, StockAdjustment.create({ delta: -1 }));
        await new AdjustStock(store.unitOfWork, clock).execute(id, StockAdjustment.create({ delta: -1 }), {
          idempotency: key('adjust-stock'),
        });
        const atOnce = store.unitOfWork.changesAtOnce === true;
        expect(run.args.map(([, options]) => options?.singleCall ?? false)).to.deep.equal([atOnce, false]);
      } finally {
        run.restore();
      }
      expect((await store.products.findById(id))?.quantityInStock).to.equal(3);
    });
  });

  describe('DeleteProduct', () => {
    it('removes the product, then reports it missing', async () => {
      const { id } = await added();
      await new DeleteProduct(store.unitOfWork).execute(id);
      expect(await store.products.findById(id)).to.equal(undefined);
      await expect(new DeleteProduct(store.unitOfWork).execute(id)).to.be.rejectedWith(ProductNotFoundError);
    });
  });

  describe('ListProducts and StreamProducts', () => {
    it('answers a page and where the next one starts', async () => {
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push((await added()).id);
      const list = new ListProducts(store.products);
      const first = await list.execute({ after: 0, limit: 2 });
      expect(first.items.map((p) => p.id)).to.deep.equal(ids.slice(0, 2));
      expect(first.nextAfter).to.equal(ids[1]);
      const last = await list.execute({ after: ids[2]!, limit: 2 });
      expect(last.items.map((p) => p.id)).to.deep.equal(ids.slice(3));
      expect(last).not.to.have.property('nextAfter');
    });

    it('walks every product in bounded batches', async () => {
      const ids = [];
      for (let i = 0; i < 7; i++) ids.push((await added()).id);
      const list = sinon.spy(store.products, 'list');
      try {
        const batches = [];
        for await (const batch of new StreamProducts(store.products).execute(3)) batches.push(batch.map((p) => p.id));
        expect(batches).to.deep.equal([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);
        expect(list.args.map(([query]) => query.limit)).to.deep.equal([3, 3, 3]);
      } finally {
        list.restore();
      }
    });

    it('yields nothing for an empty store', async () => {
      const batches = [];
      for await (const batch of new StreamProducts(store.products).execute()) batches.push(batch);
      expect(batches).to.deep.equal([]);
    });
  });
}

for (const { name, open } of STORES) describe(`Product use cases ${name}`, () => productUseCases(open));
