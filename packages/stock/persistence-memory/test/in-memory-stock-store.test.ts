import { expect } from 'chai';
import { stockStoreContracts } from '@stock/domain/testing';
import { openInMemoryStockStore as open } from './memory-store';

stockStoreContracts('InMemoryStockStore', open);
describe('InMemoryStockStore changes at once', () => {
  it('has none: every stock change takes the transaction (lock, decide, save)', async function () {
    const store = await open(this, Date.now);
    try {
      expect(store.unitOfWork.changesAtOnce ?? false).to.equal(false);
    } finally {
      await store.close();
    }
  });
});
