import { CONTRACT_TTL_MS, idempotencyContract, type OpenStockStore, orderEventsContract, productRepositoryContract, productUseCaseContract, reservationContract, stockRulesContract, unitOfWorkContract } from '@stock/test-kit';
import { InMemoryStockStore } from '../src';

const open: OpenStockStore = async (_context, now) => {
  let store = new InMemoryStockStore({ idempotencyTtlMs: CONTRACT_TTL_MS, now });
  return {
    get unitOfWork() {
      return store.unitOfWork;
    },
    get products() {
      return store.products;
    },
    get reservations() {
      return store.reservations;
    },
    get movements() {
      return store.movements;
    },
    get outbox() {
      return store.outbox;
    },
    reset: async () => {
      store = new InMemoryStockStore({ idempotencyTtlMs: CONTRACT_TTL_MS, now });
    },
    close: async () => {},
  };
};

describe('InMemoryProductRepository', () => productRepositoryContract(open));
describe('The stock rules in InMemoryProductRepository', () => stockRulesContract(open));
describe('InMemoryStockStore unit of work', () => unitOfWorkContract(open));
describe('InMemoryStockStore idempotency records', () => idempotencyContract(open));
describe('Product use cases in memory', () => productUseCaseContract(open));
describe('Reservations and the ledger in memory', () => reservationContract(open));
describe('Order events in memory', () => orderEventsContract(open));
