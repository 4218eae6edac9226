import { type IdempotencyTable, InMemoryTable } from '@platform/memory';
import type { Product, Reservation, StockMovement } from '@stock/domain';

/** The in-memory store's tables and id sequences, shared by every repository over them. */
export class InMemoryStockTables {
  readonly products = new InMemoryTable<number, Product>();
  readonly reservations = new InMemoryTable<string, Reservation>();
  readonly movements = new InMemoryTable<number, StockMovement>();
  readonly idempotency: IdempotencyTable = new InMemoryTable();
  private lastProductId = 0;
  private lastMovementId = 0;

  /** Ids are never handed out twice, even by a transaction that rolled back, as in the databases. */
  nextProductId(): number {
    return ++this.lastProductId;
  }

  nextMovementId(): number {
    return ++this.lastMovementId;
  }
}
