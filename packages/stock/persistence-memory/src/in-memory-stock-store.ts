import { allowingOneCall, type UnitOfWork } from '@platform/kernel';
import { type IdempotencyTable, InMemoryDatabase, InMemoryIdempotencyRecords, InMemoryTable } from '@platform/memory';
import type { Product, ProductRepository, StockTransaction } from '@stock/domain';
import { InMemoryProductRepository } from './in-memory-product-repository';

export interface InMemoryStockStoreOptions {
  /** How long an idempotency record is kept. */
  readonly idempotencyTtlMs: number;
  readonly now?: () => number;
}

/**
 * The stock service's storage in this process's memory: the `memory:`
 * connection string. One transaction at a time; a failed one leaves nothing.
 */
export class InMemoryStockStore {
  readonly unitOfWork: UnitOfWork<StockTransaction>;
  /** Committed products, for reads outside any unit of work. */
  readonly products: ProductRepository;

  constructor({ idempotencyTtlMs, now = Date.now }: InMemoryStockStoreOptions) {
    const database = new InMemoryDatabase();
    const products = new InMemoryTable<number, Product>();
    const idempotency: IdempotencyTable = new InMemoryTable();
    let lastId = 0;
    const nextId = () => ++lastId;
    this.products = new InMemoryProductRepository(products, nextId);
    this.unitOfWork = {
      run: (work, options = {}) =>
        database.transaction((tx) => {
          const members: StockTransaction = {
            products: new InMemoryProductRepository(products, nextId, tx),
            idempotency: new InMemoryIdempotencyRecords(idempotency, tx, idempotencyTtlMs, now),
          };
          return work(options.singleCall ? allowingOneCall(members) : members);
        }),
    };
  }
}
