import { allowingOneCall, type UnitOfWorkOptions } from '@platform/kernel';
import {
  type ConflictRetrySettings,
  type Database,
  MikroOrmIdempotencyRecords,
  MikroOrmOutbox,
  retryingConflicts,
  type SqlSession,
} from '@platform/mikro-orm';
import type { StockTransaction, StockUnitOfWork } from '@stock/domain';
import { MikroOrmLocationRepository } from './mikro-orm-location-repository';
import { MikroOrmProductRepository } from './mikro-orm-product-repository';
import { MikroOrmReservationRepository } from './mikro-orm-reservation-repository';
import { MikroOrmStockLevelRepository } from './mikro-orm-stock-level-repository';
import { MikroOrmStockMovementRepository } from './mikro-orm-stock-movement-repository';
import { MikroOrmTransferRepository } from './mikro-orm-transfer-repository';
import type { TraceIdProvider } from './write-context';

/**
 * Stock transactions on MikroORM. The work gets repositories bound to the
 * transaction's own session. Work run with `singleCall` makes one repository
 * call, which on PostgreSQL is one statement (a conditional write reads the
 * refused row back in it; `add` writes the product's level in it): it is sent
 * without BEGIN and COMMIT, and may make one call only. On SQLite such a call
 * may be two statements (`add`: the product, then its level), so it runs in a
 * transaction there, which costs no round trip in-process.
 * A transaction PostgreSQL aborts as a deadlock victim or a serialisation
 * failure runs again (retryingConflicts); one statement alone locks one row
 * and cannot deadlock.
 */
export class MikroOrmUnitOfWork implements StockUnitOfWork {
  /** PostgreSQL's levels make an adjustment or a PUT that is one plain change in one statement (adjustAtOnce). */
  readonly changesAtOnce: boolean;

  constructor(
    private readonly database: Database,
    private readonly idempotencyTtlMs: number,
    private readonly now: () => number = Date.now,
    private readonly conflictRetry: ConflictRetrySettings = {},
    /** The trace each movement is recorded in (StockMovement.traceId): the composition root hands currentTraceId. */
    private readonly traceOf?: TraceIdProvider,
  ) {
    this.changesAtOnce = database.session.dialect === 'postgresql';
  }

  run<T>(work: (tx: StockTransaction) => Promise<T>, options: UnitOfWorkOptions = {}): Promise<T> {
    if (options.singleCall && this.database.session.dialect === 'postgresql')
      return work(allowingOneCall(this.transaction(this.database.session)));
    if (options.singleCall)
      return this.database.transaction((session) => work(allowingOneCall(this.transaction(session))));
    return retryingConflicts(
      () => this.database.transaction((session) => work(this.transaction(session))),
      this.conflictRetry,
    );
  }

  private transaction(session: SqlSession): StockTransaction {
    return {
      products: new MikroOrmProductRepository(session, this.traceOf),
      locations: new MikroOrmLocationRepository(session),
      levels: new MikroOrmStockLevelRepository(session, this.traceOf),
      transfers: new MikroOrmTransferRepository(session),
      reservations: new MikroOrmReservationRepository(session),
      movements: new MikroOrmStockMovementRepository(session),
      idempotency: new MikroOrmIdempotencyRecords(session, this.idempotencyTtlMs, this.now),
      outbox: new MikroOrmOutbox(session),
    };
  }
}
