import type { UnitOfWork } from '@platform/kernel';
import { type Database, MikroOrmIdempotencyRecords, MikroOrmOutbox, retryingConflicts } from '@platform/persistence';
import type { SalesTransaction } from '@sales/domain';
import { MikroOrmOrderRepository } from './orders/mikro-orm-order-repository';

/**
 * Sales transactions on MikroORM: the orders, the idempotency records (and
 * inbox) and the outbox, all on the transaction's session. One PostgreSQL
 * aborts as a deadlock victim or a serialisation failure runs again.
 */
export interface MikroOrmSalesUnitOfWorkOptions {
  /** How long an idempotency record (and an inbox entry) is kept. */
  readonly idempotencyTtlMs: number;
  /** The clock the records' expiry counts from. */
  readonly now?: () => number;
}

export class MikroOrmSalesUnitOfWork implements UnitOfWork<SalesTransaction> {
  private readonly idempotencyTtlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly database: Database,
    { idempotencyTtlMs, now = Date.now }: MikroOrmSalesUnitOfWorkOptions,
  ) {
    this.idempotencyTtlMs = idempotencyTtlMs;
    this.now = now;
  }

  run<T>(work: (tx: SalesTransaction) => Promise<T>): Promise<T> {
    return retryingConflicts(() =>
      this.database.transaction((session) =>
        work({
          orders: new MikroOrmOrderRepository(session),
          idempotency: new MikroOrmIdempotencyRecords(session, this.idempotencyTtlMs, this.now),
          outbox: new MikroOrmOutbox(session),
        }),
      ),
    );
  }
}
