import { CONTRACT_TTL_MS, idempotencyStoreContract, productRepositoryContract } from '@stock/test-kit';
import { InMemoryIdempotencyStore, InMemoryProductRepository } from '../src';

describe('InMemoryProductRepository', () => {
  let repository = new InMemoryProductRepository();
  productRepositoryContract(async () => ({
    get repository() {
      return repository;
    },
    reset: async () => {
      repository = new InMemoryProductRepository();
    },
    close: async () => {},
  }));
});

describe('InMemoryIdempotencyStore', () => {
  idempotencyStoreContract(async (_context, now) => ({
    store: new InMemoryIdempotencyStore(CONTRACT_TTL_MS, now),
    repository: new InMemoryProductRepository(),
    close: async () => {},
  }), { transactional: false });
});
