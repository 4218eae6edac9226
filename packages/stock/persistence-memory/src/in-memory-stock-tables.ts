import { type IdempotencyTable, InMemoryTable, InMemoryTransaction } from '@platform/persistence/memory';
import {
  type Allocation,
  DEFAULT_LOCATION_CODE,
  DEFAULT_LOCATION_ID,
  type Location,
  type LocationLevel,
  type Product,
  type Reservation,
  type Shipment,
  type StockMovement,
  type StockReturn,
  type StockTransfer,
} from '@stock/domain';

/** A product's level at a location, as a row of the levels table. */
export interface LevelRow extends LocationLevel {
  readonly productId: number;
}

/** Where a reservation's line is held: one row per line, its allocations in location id order. */
export interface AllocationRow {
  readonly reservationId: string;
  readonly productId: number;
  readonly allocations: readonly Allocation[];
}

/** A line's backordered units still waiting; `seq` orders them oldest first across reservations. */
export interface BackorderRow {
  readonly reservationId: string;
  readonly productId: number;
  readonly quantity: number;
  readonly seq: number;
  /** The location the line named: only stock there fills it. */
  readonly locationId?: number;
}

/** The key of a row that belongs to a product at a location, or to a reservation's line. */
export const levelKey = (productId: number, locationId: number): string => `${productId}/${locationId}`;
export const lineKey = (reservationId: string, productId: number): string => `${reservationId}/${productId}`;
/** A reference is unique among one owner's API holds, and among the orders' holds. */
export const referenceKey = (owner: string | undefined, reference: string): string =>
  owner === undefined ? `order\n${reference}` : `api\n${owner}\n${reference}`;

/**
 * The in-memory store's tables and id sequences, shared by every repository
 * over them. Every table is an InMemoryTable, so a transaction's writes to any
 * of them are staged together and dropped together when it rolls back.
 */
export class InMemoryStockTables {
  readonly products = new InMemoryTable<number, Product>();
  readonly locations = new InMemoryTable<number, Location>();
  readonly levels = new InMemoryTable<string, LevelRow>();
  readonly transfers = new InMemoryTable<string, StockTransfer>();
  readonly reservations = new InMemoryTable<string, Reservation>();
  /** A reservation's id by its reference (referenceKey), as the databases' unique indexes on the references find it. */
  readonly references = new InMemoryTable<string, string>();
  readonly allocations = new InMemoryTable<string, AllocationRow>();
  readonly backorders = new InMemoryTable<string, BackorderRow>();
  readonly movements = new InMemoryTable<number, StockMovement>();
  readonly shipments = new InMemoryTable<string, Shipment>();
  readonly returns = new InMemoryTable<string, StockReturn>();
  /** Each product's last movement sequence (the SQL stores' product.movement_sequence). */
  readonly movementSequences = new InMemoryTable<number, number>();
  readonly idempotency: IdempotencyTable = new InMemoryTable();
  private lastProductId = 0;
  private lastMovementId = 0;
  private lastLocationId = DEFAULT_LOCATION_ID;
  private lastBackorderSeq = 0;

  /**
   * The default location is there from the start, as the migration creates it in the databases. `traceId` names the
   * trace a movement is made in when its context does not (the composition root hands OpenTelemetry's).
   */
  constructor(readonly traceId?: () => string | undefined) {
    const tx = new InMemoryTransaction();
    const location = { id: DEFAULT_LOCATION_ID, code: DEFAULT_LOCATION_CODE, name: 'Default', priority: 0 };
    this.locations.set(DEFAULT_LOCATION_ID, location, tx);
    tx.commit();
  }

  /** Ids are never handed out twice, even by a transaction that rolled back, as in the databases. */
  nextProductId(): number {
    return ++this.lastProductId;
  }

  nextMovementId(): number {
    return ++this.lastMovementId;
  }

  nextLocationId(): number {
    return ++this.lastLocationId;
  }

  nextBackorderSeq(): number {
    return ++this.lastBackorderSeq;
  }

  /** A product's levels in location id order, as `tx` sees them. */
  levelsOf(productId: number, tx: InMemoryTransaction | undefined): LocationLevel[] {
    const levels: LocationLevel[] = [];
    for (const { id } of this.locations.values(tx)) {
      const row = this.levels.get(levelKey(productId, id), tx);
      if (row) {
        const { productId: _, ...level } = row;
        levels.push(level);
      }
    }
    return levels.sort((a, b) => a.locationId - b.locationId);
  }
}
