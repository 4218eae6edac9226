import type { OutboxStore, UnitOfWork } from '@platform/kernel';
import type { OrderRepository, SalesTransaction } from '../src';

/** One adapter's sales storage, as the contract suites drive it. */
export interface SalesStoreUnderTest {
  readonly unitOfWork: UnitOfWork<SalesTransaction>;
  /** Committed orders, read outside any unit of work. */
  readonly orders: OrderRepository;
  /** The relay's side of the outbox: what the suites read the events back from. */
  readonly outbox: OutboxStore;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export type OpenSalesStore = (context: Mocha.Context) => Promise<SalesStoreUnderTest>;
