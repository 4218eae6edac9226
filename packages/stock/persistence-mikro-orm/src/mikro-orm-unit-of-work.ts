import { allowingOneCall, type UnitOfWork, type UnitOfWorkOptions } from '@platform/kernel';
import {
  type ConflictRetrySettings,
  type Database,
  MikroOrmIdempotencyRecords,
  MikroOrmOutbox,
  retryingConflicts,
  type SqlSession,
} from '@platform/mikro-orm';
import type { StockTransaction } from '@stock/domain';
import { MikroOrmProductRepository } from './mikro-orm-product-repository';
import { MikroOrmReservationRepository } from './mikro-orm-reservation-repository';
import { MikroOrmStockMovementRepository } from './mikro-orm-stock-movement-repository';

/**
 * Stock transactions on MikroORM. The work gets repositories bound to the
 * transaction's own session. Work run with `singleCall` makes one repository
 * call, which is one conditional write (on PostgreSQL with the row read back in
 * the same statement when it is refused; on SQLite the read follows, only to
 * say why): it is sent without BEGIN and COMMIT, and may make one call only.
 * A transaction PostgreSQL aborts as a deadlock victim or a serialisation
 * failure runs again (retryingConflicts); one statement alone locks one row
 * and cannot deadlock.
 */
export class MikroOrmUnitOfWork implements UnitOfWork<StockTransaction> {
  constructor(
    private readonly database: Database,
    private readonly idempotencyTtlMs: number,
    private readonly now: () => number = Date.now,
    private readonly conflictRetry: ConflictRetrySettings = {},
  ) {}

  run<T>(work: (tx: StockTransaction) => Promise<T>, options: UnitOfWorkOptions = {}): Promise<T> {
    if (options.singleCall) return work(allowingOneCall(this.transaction(this.database.session)));
    return retryingConflicts(
      () => this.database.transaction((session) => work(this.transaction(session))),
      this.conflictRetry,
    );
  }

  private transaction(session: SqlSession): StockTransaction {
    return {
      products: new MikroOrmProductRepository(session),
      reservations: new MikroOrmReservationRepository(session),
      movements: new MikroOrmStockMovementRepository(session),
      idempotency: new MikroOrmIdempotencyRecords(session, this.idempotencyTtlMs, this.now),
      outbox: new MikroOrmOutbox(session),
    };
  }
}
