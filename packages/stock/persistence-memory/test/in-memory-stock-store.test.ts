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
import { openInMemoryStockStore as open } from './memory-store';

describe('InMemoryProductRepository', () => productRepositoryContract(open));
describe('InMemoryProductRepository: SKUs and search', () => productSearchContract(open));
describe('InMemoryLocationRepository', () => locationRepositoryContract(open));
describe('InMemoryProductStockRepository', () => productStockRepositoryContract(open));
describe('InMemoryTransferRepository', () => transferRepositoryContract(open));
describe('InMemoryReservationRepository', () => reservationRepositoryContract(open));
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
describe('InMemoryStockStore unit of work', () => unitOfWorkContract(open));
describe('InMemoryStockStore idempotency records', () => idempotencyContract(open));
