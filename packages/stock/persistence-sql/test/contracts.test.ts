import { expect } from 'chai';
import { stockStoreContracts } from '@stock/domain/testing';
import { changesAtOnceContract } from '@stock/application/testing';
import { openScratchStore } from './scratch-stores';

for (const dialect of ['sqlite', 'postgresql'] as const) {
  stockStoreContracts(`SQL store on ${dialect}`, openScratchStore(dialect));
  if (dialect === 'postgresql')
    describe(`Stock changes at once on ${dialect}`, () => changesAtOnceContract(openScratchStore(dialect)));
  else
    describe(`Stock changes at once on ${dialect}`, () => {
      it('has none: its transactions run in process and take turns, so every change takes one', async function () {
        const store = await openScratchStore(dialect)(this, Date.now);
        try {
          expect(store.unitOfWork.changesAtOnce ?? false).to.equal(false);
        } finally {
          await store.close();
        }
      });
    });
}
