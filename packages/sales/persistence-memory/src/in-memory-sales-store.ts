import type { OutboxStore, UnitOfWork } from '@platform/kernel';
import {
  type IdempotencyTable,
  InMemoryDatabase,
  InMemoryIdempotencyRecords,
  InMemoryOutbox,
  InMemoryOutboxStore,
  InMemoryTable,
  type OutboxTable,
} from '@platform/persistence/memory';
import type { Order, OrderRepository, SalesTransaction } from '@sales/domain';
import { InMemoryOrderRepository, type PaymentDueTable } from './orders/in-memory-order-repository';

export interface InMemorySalesStoreOptions {
  readonly idempotencyTtlMs: number;
  readonly now?: () => number;
}

/** The sales service's storage in this process's memory: the `memory:` connection string. */
export class InMemorySalesStore {
  readonly unitOfWork: UnitOfWork<SalesTransaction>;
  /** Committed orders, for reads outside any unit of work. */
  readonly orders: OrderRepository;
  /** The relay's side of the outbox. */
  readonly outbox: OutboxStore;

  constructor({ idempotencyTtlMs, now = Date.now }: InMemorySalesStoreOptions) {
    const database = new InMemoryDatabase();
    const orders = new InMemoryTable<string, Order>();
    const paymentDue: PaymentDueTable = new InMemoryTable();
    const idempotency: IdempotencyTable = new InMemoryTable();
    const outbox: OutboxTable = new InMemoryTable();
    this.orders = new InMemoryOrderRepository(orders, paymentDue);
    this.outbox = new InMemoryOutboxStore(database, outbox);
    this.unitOfWork = {
      run: (work) =>
        database.transaction((tx) =>
          work({
            orders: new InMemoryOrderRepository(orders, paymentDue, tx),
            idempotency: new InMemoryIdempotencyRecords(idempotency, tx, idempotencyTtlMs, now),
            outbox: new InMemoryOutbox(outbox, tx),
          }),
        ),
    };
  }
}
