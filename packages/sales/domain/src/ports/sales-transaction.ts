import type { IdempotencyRecords } from '@platform/kernel';
import type { OrderRepository } from './order-repository';

/** What a sales use case reaches inside one unit of work (`UnitOfWork<SalesTransaction>`). */
export interface SalesTransaction {
  readonly orders: OrderRepository;
  readonly idempotency: IdempotencyRecords;
}
