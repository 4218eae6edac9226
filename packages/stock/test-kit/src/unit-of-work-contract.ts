import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import type { StockTransaction } from '@stock/domain';
import { aContext, aProduct } from './builders';
import type { OpenStockStore, StockStoreUnderTest } from './stock-store';

chai.use(chaiAsPromised);
const { expect } = chai;

/** What every UnitOfWork<StockTransaction> promises: all of the work or none of it, and nothing after it settled. */
export function unitOfWorkContract(open: OpenStockStore): void {
  let store: StockStoreUnderTest;

  before(async function () {
    store = await open(this, Date.now);
  });
  beforeEach(async () => store.reset());
  after(async () => store?.close());

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
    let added = 0;
    const failed = store.unitOfWork.run(async (tx) => {
      added = (await tx.products.add(aProduct(), aContext())).id;
      await tx.products.adjustStock(id, -3, aContext());
      await tx.products.update(id, aProduct({ name: 'Never seen' }), undefined, aContext());
      await tx.idempotency.claim({ scope: 'contract', key: 'k', fingerprint: 'f' });
      throw new Error('after the writes');
    });
    await expect(failed).to.be.rejectedWith('after the writes');
    expect(added).to.be.greaterThan(0);
    expect(await store.products.findById(added)).to.equal(undefined);
    expect(await store.products.findById(id)).to.include({ quantityInStock: 5, version: 1 });
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
        await tx.products.adjustStock(id, -1, aContext());
        await tx.products.adjustStock(id, -1, aContext());
      },
      { singleCall: true },
    );
    await expect(twice).to.be.rejectedWith(/second call/);
    expect((await store.products.findById(id))?.quantityInStock).to.be.oneOf([4, 5]);
  });
}
