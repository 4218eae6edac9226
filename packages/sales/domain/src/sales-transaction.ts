import type { IdempotencyRecords, Outbox } from '@platform/kernel';
import type { OrderRepository } from './orders/order-repository';

/** What a sales use case reaches inside one unit of work (`UnitOfWork<SalesTransaction>`). */
export interface SalesTransaction {
  readonly orders: OrderRepository;
  readonly idempotency: IdempotencyRecords;
  /** The events of this unit of work: they commit with the orders' changes, or not at all. */
  readonly outbox: Outbox;
}
