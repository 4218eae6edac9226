import { expect } from 'chai';
import {
  changesAtOnceContract,
  idempotencyContract,
  locationRepositoryContract,
  productRepositoryContract,
  productSearchContract,
  reservationRepositoryContract,
  stockLevelRepositoryContract,
  stockRulesContract,
  transferRepositoryContract,
  unitOfWorkContract,
} from '@stock/test-kit';
import { openScratchStore } from './scratch-stores';

for (const dialect of ['sqlite', 'postgresql'] as const) {
  describe(`MikroOrmProductRepository on ${dialect}`, () => productRepositoryContract(openScratchStore(dialect)));
  describe(`MikroOrmProductRepository on ${dialect}: SKUs and search`, () =>
    productSearchContract(openScratchStore(dialect)));
  describe(`MikroOrmLocationRepository on ${dialect}`, () => locationRepositoryContract(openScratchStore(dialect)));
  describe(`MikroOrmStockLevelRepository on ${dialect}`, () => stockLevelRepositoryContract(openScratchStore(dialect)));
  describe(`MikroOrmTransferRepository on ${dialect}`, () => transferRepositoryContract(openScratchStore(dialect)));
  describe(`MikroOrmReservationRepository on ${dialect}`, () =>
    reservationRepositoryContract(openScratchStore(dialect)));
  describe(`The stock rules and the SQL guards on ${dialect}`, () => stockRulesContract(openScratchStore(dialect)));
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
  describe(`MikroOrmUnitOfWork on ${dialect}`, () => unitOfWorkContract(openScratchStore(dialect)));
  describe(`MikroOrmIdempotencyRecords on ${dialect}`, () => idempotencyContract(openScratchStore(dialect)));
}
