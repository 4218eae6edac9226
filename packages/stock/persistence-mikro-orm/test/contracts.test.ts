import { idempotencyContract, productRepositoryContract, unitOfWorkContract } from '@stock/test-kit';
import { openScratchStore } from './scratch-stores';

for (const dialect of ['sqlite', 'postgresql'] as const) {
  describe(`MikroOrmProductRepository on ${dialect}`, () => productRepositoryContract(openScratchStore(dialect)));
  describe(`MikroOrmUnitOfWork on ${dialect}`, () => unitOfWorkContract(openScratchStore(dialect)));
  describe(`MikroOrmIdempotencyRecords on ${dialect}`, () => idempotencyContract(openScratchStore(dialect)));
}
