import type { IdempotencyRecords } from '@platform/kernel';
import type { ProductRepository } from './product-repository';

/** What a stock use case reaches inside one unit of work (`UnitOfWork<StockTransaction>`). */
export interface StockTransaction {
  readonly products: ProductRepository;
  readonly idempotency: IdempotencyRecords;
}
