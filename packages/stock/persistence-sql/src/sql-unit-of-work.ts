import { allowingOneCall, type UnitOfWorkOptions } from '@platform/kernel';
import {
  type ConflictRetrySettings,
  type Database,
  MikroOrmIdempotencyRecords,
  MikroOrmOutbox,
  retryingConflicts,
  type SqlSession,
} from '@platform/persistence';
import type { StockTransaction, StockUnitOfWork } from '@stock/domain';
import { SqlLocationRepository } from './locations/sql-location-repository';
import { SqlProductRepository } from './products/sql-product-repository';
import { SqlReservationRepository } from './reservations/sql-reservation-repository';
import { SqlStockMovementRepository } from './ledger/sql-stock-movement-repository';
import { SqlTransferRepository } from './transfers/sql-transfer-repository';
import { SqlShipmentRepository } from './fulfilment/sql-shipment-repository';
import { SqlReturnRepository } from './fulfilment/sql-return-repository';
import { SqlProductStockRepository, type TraceIdProvider } from './stock/sql-product-stock-repository';

/** The same settings as InMemoryStockStore's, and how a conflict PostgreSQL aborts is retried. */
export interface SqlUnitOfWorkOptions {
  /** How long an idempotency record is kept. */
  readonly idempotencyTtlMs: number;
  readonly now?: () => number;
  readonly conflictRetry?: ConflictRetrySettings;
  /** The trace each movement is recorded in (StockMovement.traceId): the composition root hands currentTraceId. */
  readonly traceId?: TraceIdProvider;
}

/**
 * Stock transactions in SQL, on the database's own driver handle (ADR 0018). The work gets repositories bound to the
 * transaction's own session. Work run with `singleCall` makes one repository
 * call, which on PostgreSQL is one statement (a conditional write reads the
 * refused row back in it; `add` writes the product's level and opening
 * movement in it): it is sent without BEGIN and COMMIT, and may make one call
 * only. On SQLite such a call may be several statements (`add`: the product,
 * its level, its movement), so it runs in a transaction there, which costs no
 * round trip in-process.
 * A transaction PostgreSQL aborts as a deadlock victim or a serialisation
 * failure runs again (retryingConflicts); one statement alone locks one row
 * and cannot deadlock.
 */
export class SqlUnitOfWork implements StockUnitOfWork {
  /** PostgreSQL's stock makes an adjustment or a PUT that is one plain change in one statement (adjustAtOnce). */
  readonly changesAtOnce: boolean;

  private readonly idempotencyTtlMs: number;
  private readonly now: () => number;
  private readonly conflictRetry: ConflictRetrySettings;
  private readonly traceOf: TraceIdProvider | undefined;

  constructor(
    private readonly database: Database,
    { idempotencyTtlMs, now = Date.now, conflictRetry = {}, traceId }: SqlUnitOfWorkOptions,
  ) {
    this.idempotencyTtlMs = idempotencyTtlMs;
    this.now = now;
    this.conflictRetry = conflictRetry;
    this.traceOf = traceId;
    this.changesAtOnce = database.session.dialect === 'postgresql';
  }

  run<T>(work: (tx: StockTransaction) => Promise<T>, options: UnitOfWorkOptions = {}): Promise<T> {
    if (options.singleCall && this.database.session.dialect === 'postgresql')
      return work(allowingOneCall(this.transaction(this.database.session)));
    if (options.singleCall)
      return this.database.transaction((session) => work(allowingOneCall(this.transaction(session))));
    // SQLite's transactions take turns on its one connection: none is ever aborted as a deadlock victim or a
    // serialisation failure, so there is nothing to run again.
    if (this.database.session.dialect === 'sqlite')
      return this.database.transaction((session) => work(this.transaction(session)));
    return retryingConflicts(
      () => this.database.transaction((session) => work(this.transaction(session))),
      this.conflictRetry,
    );
  }

  private transaction(session: SqlSession): StockTransaction {
    return {
      products: new SqlProductRepository(session, this.traceOf),
      locations: new SqlLocationRepository(session),
      stock: new SqlProductStockRepository(session, this.traceOf),
      transfers: new SqlTransferRepository(session),
      reservations: new SqlReservationRepository(session),
      movements: new SqlStockMovementRepository(session),
      shipments: new SqlShipmentRepository(session),
      returns: new SqlReturnRepository(session),
      idempotency: new MikroOrmIdempotencyRecords(session, this.idempotencyTtlMs, this.now),
      outbox: new MikroOrmOutbox(session),
    };
  }
}
