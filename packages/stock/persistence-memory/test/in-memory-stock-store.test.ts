import { expect } from 'chai';
import {
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
import { openInMemoryStockStore as open } from './memory-store';

describe('InMemoryProductRepository', () => productRepositoryContract(open));
describe('InMemoryProductRepository: SKUs and search', () => productSearchContract(open));
describe('InMemoryLocationRepository', () => locationRepositoryContract(open));
describe('InMemoryStockLevelRepository', () => stockLevelRepositoryContract(open));
describe('InMemoryTransferRepository', () => transferRepositoryContract(open));
describe('InMemoryReservationRepository', () => reservationRepositoryContract(open));
describe('The stock plans and the guard of InMemoryStockLevelRepository', () => stockRulesContract(open));
describe('InMemoryStockStore changes at once', () => {
  it('has none: every stock change takes the transaction (lock, plan, apply)', async function () {
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
