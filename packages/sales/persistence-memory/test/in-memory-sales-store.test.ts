import { type OpenSalesStore, orderRepositoryContract, salesUseCaseContract } from '@sales/test-kit';
import { InMemorySalesStore } from '../src';

const open: OpenSalesStore = async () => {
  let store = new InMemorySalesStore({ idempotencyTtlMs: 60_000 });
  return {
    get unitOfWork() {
      return store.unitOfWork;
    },
    get orders() {
      return store.orders;
    },
    get outbox() {
      return store.outbox;
    },
    reset: async () => {
      store = new InMemorySalesStore({ idempotencyTtlMs: 60_000 });
    },
    close: async () => {},
  };
};

describe('InMemoryOrderRepository', () => orderRepositoryContract(open));
describe('Sales use cases in memory', () => salesUseCaseContract(open));
