import { allowingOneCall, type UnitOfWork } from '@platform/kernel';
import {
  InMemoryDatabase,
  InMemoryIdempotencyRecords,
  InMemoryOutbox,
  InMemoryOutboxStore,
  InMemoryTable,
  type OutboxTable,
} from '@platform/persistence/memory';
import type { OutboxStore } from '@platform/kernel';
import type {
  LocationRepository,
  ProductRepository,
  ProductStockRepository,
  ReservationRepository,
  ReturnRepository,
  ShipmentRepository,
  StockMovementRepository,
  StockTransaction,
  TransferRepository,
} from '@stock/domain';
import { InMemoryLocationRepository } from './locations/in-memory-location-repository';
import { InMemoryProductRepository } from './products/in-memory-product-repository';
import { InMemoryProductStockRepository } from './stock/in-memory-product-stock-repository';
import { InMemoryReservationRepository } from './reservations/in-memory-reservation-repository';
import { InMemoryStockMovementRepository } from './ledger/in-memory-stock-movement-repository';
import { InMemoryStockTables } from './in-memory-stock-tables';
import { InMemoryTransferRepository } from './transfers/in-memory-transfer-repository';
import { InMemoryShipmentRepository } from './fulfilment/in-memory-shipment-repository';
import { InMemoryReturnRepository } from './fulfilment/in-memory-return-repository';

export interface InMemoryStockStoreOptions {
  /** How long an idempotency record is kept. */
  readonly idempotencyTtlMs: number;
  readonly now?: () => number;
  /** The trace a movement is made in (StockMovement.traceId): the composition root hands currentTraceId. */
  readonly traceId?: () => string | undefined;
}

/**
 * The stock service's storage in this process's memory: the `memory:`
 * connection string. One transaction at a time; a failed one leaves nothing.
 */
export class InMemoryStockStore {
  readonly unitOfWork: UnitOfWork<StockTransaction>;
  /** Committed state, for reads outside any unit of work. */
  readonly products: ProductRepository;
  readonly locations: LocationRepository;
  /** Reads only (`list`): locking and saving belong inside a unit of work. */
  readonly stock: ProductStockRepository;
  readonly transfers: TransferRepository;
  readonly reservations: ReservationRepository;
  readonly movements: StockMovementRepository;
  readonly shipments: ShipmentRepository;
  readonly returns: ReturnRepository;
  /** The relay's side of the outbox. */
  readonly outbox: OutboxStore;
  /** The outbox's rows, for what fans them out beside the relay (webhooks). */
  readonly outboxRows: OutboxTable;

  constructor({ idempotencyTtlMs, now = Date.now, traceId }: InMemoryStockStoreOptions) {
    const database = new InMemoryDatabase();
    const tables = new InMemoryStockTables(traceId);
    this.products = new InMemoryProductRepository(tables);
    this.locations = new InMemoryLocationRepository(tables);
    this.stock = new InMemoryProductStockRepository(tables);
    this.transfers = new InMemoryTransferRepository(tables);
    this.reservations = new InMemoryReservationRepository(tables);
    this.movements = new InMemoryStockMovementRepository(tables);
    this.shipments = new InMemoryShipmentRepository(tables);
    this.returns = new InMemoryReturnRepository(tables);
    const outbox: OutboxTable = new InMemoryTable();
    this.outboxRows = outbox;
    this.outbox = new InMemoryOutboxStore(database, outbox);
    this.unitOfWork = {
      run: (work, options = {}) =>
        database.transaction((tx) => {
          const members: StockTransaction = {
            products: new InMemoryProductRepository(tables, tx),
            locations: new InMemoryLocationRepository(tables, tx),
            stock: new InMemoryProductStockRepository(tables, tx),
            transfers: new InMemoryTransferRepository(tables, tx),
            reservations: new InMemoryReservationRepository(tables, tx),
            movements: new InMemoryStockMovementRepository(tables, tx),
            shipments: new InMemoryShipmentRepository(tables, tx),
            returns: new InMemoryReturnRepository(tables, tx),
            idempotency: new InMemoryIdempotencyRecords(tables.idempotency, tx, idempotencyTtlMs, now),
            outbox: new InMemoryOutbox(outbox, tx),
          };
          return work(options.singleCall ? allowingOneCall(members) : members);
        }),
    };
  }
}
