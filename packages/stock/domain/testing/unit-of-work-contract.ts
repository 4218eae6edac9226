import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { DEFAULT_LOCATION_ID, DEFAULT_STOCK_POLICY, type StockTransaction } from '../src';
import { aContext, aLocation, aProduct } from './builders';
import { changeOf } from './stock-fixtures';
import { onOneStore, type OpenStockStore, type StockStoreUnderTest } from './stock-store';

chai.use(chaiAsPromised);
const { expect } = chai;

/** What every UnitOfWork<StockTransaction> promises: all of the work or none of it, and nothing after it settled. */
export function unitOfWorkContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;

  onOneStore(open, (opened) => (store = opened));

  it('commits every write of the work together', async () => {
    const [first, second] = await store.unitOfWork.run(
      async (tx) =>
        [await tx.products.add(aProduct(), aContext()), await tx.products.add(aProduct(), aContext())] as const,
    );
    expect(await store.products.findById(first.id)).to.include({ id: first.id });
    expect(await store.products.findById(second.id)).to.include({ id: second.id });
  });

  it('leaves nothing behind when the work fails after writing', async () => {
    const { id } = await store.unitOfWork.run((tx) => tx.products.add(aProduct({ quantityInStock: 5 }), aContext()));
    const levels = await store.stock.list(id);
    const movements = await store.movements.list(id, { after: 0, limit: 100 });
    let added = 0;
    let location = 0;
    const failed = store.unitOfWork.run(async (tx) => {
      added = (await tx.products.add(aProduct(), aContext())).id;
      const second = await tx.locations.add(aLocation());
      location = second === 'code-taken' ? 0 : second.id;
      const stock = (await tx.stock.lock(id))!;
      const taken = changeOf(stock.adjust(DEFAULT_LOCATION_ID, -3, DEFAULT_STOCK_POLICY));
      const moved = taken.followedBy(changeOf(taken.after.adjust(location, 2, DEFAULT_STOCK_POLICY)));
      await tx.stock.save(moved, aContext());
      await tx.products.updateDetails(id, aProduct({ name: 'Never seen' }), undefined);
      await tx.idempotency.claim({ scope: 'contract', key: 'k', fingerprint: 'f' });
      throw new Error('after the writes');
    });
    await expect(failed).to.be.rejectedWith('after the writes');
    expect(added).to.be.greaterThan(0);
    expect(location).to.be.greaterThan(DEFAULT_LOCATION_ID);
    expect(await store.products.findById(added)).to.equal(undefined);
    expect(await store.stock.list(added)).to.equal(undefined);
    expect(await store.locations.findById(location)).to.equal(undefined);
    expect(await store.products.findById(id)).to.include({ quantityInStock: 5, version: 1, backorderedQuantity: 0 });
    expect(await store.stock.list(id)).to.deep.equal(levels);
    expect(await store.movements.list(id, { after: 0, limit: 100 })).to.deep.equal(movements);
    const claim = await store.unitOfWork.run((tx) =>
      tx.idempotency.claim({ scope: 'contract', key: 'k', fingerprint: 'f' }),
    );
    expect(claim).to.deep.equal({ status: 'claimed' });
  });

  it('sees its own writes before it commits', async () => {
    let seenInside: unknown;
    const { id } = await store.unitOfWork.run(async (tx) => {
      const product = await tx.products.add(aProduct({ name: 'Staged' }), aContext());
      seenInside = (await tx.products.findById(product.id))?.name;
      return product;
    });
    expect(seenInside).to.equal('Staged');
    expect((await store.products.findById(id))?.name).to.equal('Staged');
  });

  it('refuses to work through a transaction once it has committed or rolled back', async () => {
    let committed: StockTransaction | undefined;
    await store.unitOfWork.run(async (tx) => {
      committed = tx;
    });
    await expect(committed!.products.add(aProduct(), aContext())).to.be.rejectedWith(/committed/);
    let rolledBack: StockTransaction | undefined;
    await expect(
      store.unitOfWork.run(async (tx) => {
        rolledBack = tx;
        throw new Error('fail');
      }),
    ).to.be.rejectedWith('fail');
    await expect(rolledBack!.products.add(aProduct(), aContext())).to.be.rejectedWith(/rolled back/);
    expect(await store.products.list({ after: 0, limit: 10 })).to.deep.equal([]);
  });

  it('allows one call only in work run as a single call', async () => {
    const { id } = await store.unitOfWork.run((tx) => tx.products.add(aProduct({ quantityInStock: 5 }), aContext()));
    const twice = store.unitOfWork.run(
      async (tx) => {
        await tx.products.updateDetails(id, aProduct({ name: 'First' }), undefined);
        await tx.products.updateDetails(id, aProduct({ name: 'Second' }), undefined);
      },
      { singleCall: true },
    );
    await expect(twice).to.be.rejectedWith(/second call/);
    expect((await store.products.findById(id))?.name).to.not.equal('Second');
  });
}
