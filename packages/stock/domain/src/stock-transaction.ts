import type { IdempotencyRecords, Outbox, UnitOfWork } from '@platform/kernel';
import type { LocationRepository } from './locations/location-repository';
import type { ProductRepository } from './products/product-repository';
import type { ProductStockRepository } from './stock/product-stock-repository';
import type { ReservationRepository } from './reservations/reservation-repository';
import type { StockMovementRepository } from './ledger/stock-movement-repository';
import type { TransferRepository } from './transfers/transfer-repository';
import type { ReturnRepository } from './fulfilment/return-repository';
import type { ShipmentRepository } from './fulfilment/shipment-repository';

/** What a stock use case reaches inside one unit of work (`UnitOfWork<StockTransaction>`). */
export interface StockTransaction {
  readonly products: ProductRepository;
  readonly locations: LocationRepository;
  /** Products' stock: locked, decided by the ProductStock aggregate, saved with its ledger. */
  readonly stock: ProductStockRepository;
  readonly transfers: TransferRepository;
  readonly reservations: ReservationRepository;
  readonly movements: StockMovementRepository;
  /** What left for orders, and what of it came back. */
  readonly shipments: ShipmentRepository;
  readonly returns: ReturnRepository;
  readonly idempotency: IdempotencyRecords;
  /** The events of this unit of work: they commit with the stock's changes, or not at all. */
  readonly outbox: Outbox;
}

/**
 * The stock use cases' unit of work. `changesAtOnce` says that its
 * transactions' stock has adjustAtOnce and replaceAtOnce, so a use case
 * tries them first; it is known before any unit of work runs, because finding
 * out from inside one would cost a transaction where they are absent (SQLite:
 * BEGIN and COMMIT).
 */
export interface StockUnitOfWork extends UnitOfWork<StockTransaction> {
  readonly changesAtOnce?: boolean;
}
