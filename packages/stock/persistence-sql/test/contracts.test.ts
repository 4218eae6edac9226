import { expect } from 'chai';
import {
  idempotencyContract,
  locationRepositoryContract,
  productRepositoryContract,
  productSearchContract,
  productStockRepositoryContract,
  reservationRepositoryContract,
  transferRepositoryContract,
  unitOfWorkContract,
} from '@stock/domain/testing';
import { changesAtOnceContract } from '@stock/application/testing';
import { openScratchStore } from './scratch-stores';

for (const dialect of ['sqlite', 'postgresql'] as const) {
  describe(`SqlProductRepository on ${dialect}`, () => productRepositoryContract(openScratchStore(dialect)));
  describe(`SqlProductRepository on ${dialect}: SKUs and search`, () =>
    productSearchContract(openScratchStore(dialect)));
  describe(`SqlLocationRepository on ${dialect}`, () => locationRepositoryContract(openScratchStore(dialect)));
  describe(`SqlProductStockRepository on ${dialect}`, () => productStockRepositoryContract(openScratchStore(dialect)));
  describe(`SqlTransferRepository on ${dialect}`, () => transferRepositoryContract(openScratchStore(dialect)));
  describe(`SqlReservationRepository on ${dialect}`, () => reservationRepositoryContract(openScratchStore(dialect)));
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
  describe(`SqlUnitOfWork on ${dialect}`, () => unitOfWorkContract(openScratchStore(dialect)));
  describe(`MikroOrmIdempotencyRecords on ${dialect}`, () => idempotencyContract(openScratchStore(dialect)));
}
