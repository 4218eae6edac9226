import { productRepositoryContract } from '@stock/test-kit';
import { InMemoryProductRepository } from '../src';

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
