import type { InMemoryTransaction } from '@platform/persistence/memory';
import type {
  Allocation,
  Backorder,
  Fill,
  HeldLine,
  LineHold,
  Reservation,
  ReservationLine,
  ReservationRepository,
  ReservationStatus,
} from '@stock/domain';
import { type InMemoryStockTables, lineKey, referenceKey } from '../in-memory-stock-tables';

/**
 * Reservations in an in-memory table, each line's hold in two more (its
 * allocations, its backordered units), assembled into held lines on every
 * read. Transactions run one at a time here, so claiming expired ones needs
 * no lock.
 */
export class InMemoryReservationRepository implements ReservationRepository {
  constructor(
    private readonly tables: InMemoryStockTables,
    private readonly tx?: InMemoryTransaction,
  ) {}

  async claim(reservation: Reservation): Promise<'claimed' | 'taken'> {
    // As PostgreSQL's reservation_owner_check: an API hold has an owner, an order's has none.
    if ((reservation.origin === 'api') !== (reservation.owner !== undefined))
      throw new Error(
        `Reservation ${reservation.id} of origin ${reservation.origin} cannot have the owner ${reservation.owner}.`,
      );
    const reference = referenceKey(reservation.owner, reservation.reference);
    if (this.tables.references.get(reference, this.tx) !== undefined) return 'taken';
    // The lines as requested: where they are held lives in the holds' tables, recorded by recordHold.
    const lines = reservation.lines.map(({ productId, quantity, locationId }) => ({
      productId,
      quantity,
      ...(locationId !== undefined && { locationId }),
    }));
    this.tables.reservations.set(reservation.id, { ...reservation, lines }, this.writable());
    this.tables.references.set(reference, reservation.id, this.writable());
    return 'claimed';
  }

  async findById(id: string): Promise<Reservation | undefined> {
    return this.withHolds(this.tables.reservations.get(id, this.tx));
  }

  async findByReference(owner: string, reference: string): Promise<Reservation | undefined> {
    return this.byReference(referenceKey(owner, reference));
  }

  async findForOrder(orderId: string): Promise<Reservation | undefined> {
    return this.byReference(referenceKey(undefined, orderId));
  }

  /** Transactions run one at a time here: the order's reservation is the transaction's alone as it is. */
  async lockForOrder(orderId: string): Promise<Reservation | undefined> {
    return this.findForOrder(orderId);
  }

  async transition(
    id: string,
    status: Exclude<ReservationStatus, 'held'>,
    at: Date,
    from: 'held' | 'committed' = 'held',
  ): Promise<Reservation | undefined> {
    const current = this.tables.reservations.get(id, this.tx);
    if (current?.status !== from) return undefined;
    const moved = { ...current, status, updatedAt: at };
    this.tables.reservations.set(id, moved, this.writable());
    return this.withHolds(moved);
  }

  async claimExpired(now: Date, limit: number): Promise<Reservation[]> {
    const due: Reservation[] = [];
    for (const reservation of this.tables.reservations.values(this.tx)) {
      if (due.length === limit) break;
      if (reservation.status === 'held' && reservation.expiresAt <= now) due.push(reservation);
    }
    return due.sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime()).map((r) => this.withHolds(r)!);
  }

  async recordHold(reservationId: string, productId: number, hold: LineHold): Promise<void> {
    const tx = this.writable();
    const key = lineKey(reservationId, productId);
    const allocations = [...hold.allocations].sort((a, b) => a.locationId - b.locationId);
    this.tables.allocations.set(key, { reservationId, productId, allocations }, tx);
    if (hold.backordered > 0) {
      const seq = this.tables.nextBackorderSeq();
      const { locationId } = hold;
      const row = {
        reservationId,
        productId,
        quantity: hold.backordered,
        seq,
        ...(locationId !== undefined && { locationId }),
      };
      this.tables.backorders.set(key, row, tx);
    } else this.tables.backorders.delete(key, tx);
  }

  async holdOf(reservationId: string, productId: number): Promise<LineHold> {
    const key = lineKey(reservationId, productId);
    return {
      allocations: this.tables.allocations.get(key, this.tx)?.allocations ?? [],
      backordered: this.tables.backorders.get(key, this.tx)?.quantity ?? 0,
    };
  }

  async backorders(productId: number): Promise<Backorder[]> {
    return [...this.tables.backorders.values(this.tx)]
      .filter(
        (row) =>
          row.productId === productId && this.tables.reservations.get(row.reservationId, this.tx)?.status === 'held',
      )
      .sort((a, b) => a.seq - b.seq)
      .map(({ reservationId, quantity, locationId }) => ({
        reservationId,
        quantity,
        ...(locationId !== undefined && { locationId }),
      }));
  }

  /** Moves the fill's units from the line's backorder (gone when it reaches 0) to its allocation at the location. */
  async recordFill(productId: number, { reservationId, locationId, quantity }: Fill): Promise<void> {
    const tx = this.writable();
    const key = lineKey(reservationId, productId);
    const backorder = this.tables.backorders.get(key, tx);
    if (!backorder || backorder.quantity < quantity)
      throw new Error(`Reservation ${reservationId} waits for fewer than ${quantity} of product ${productId}.`);
    if (backorder.quantity === quantity) this.tables.backorders.delete(key, tx);
    else this.tables.backorders.set(key, { ...backorder, quantity: backorder.quantity - quantity }, tx);
    const allocations = new Map<number, number>(
      (this.tables.allocations.get(key, tx)?.allocations ?? []).map((a) => [a.locationId, a.quantity]),
    );
    allocations.set(locationId, (allocations.get(locationId) ?? 0) + quantity);
    const sorted: Allocation[] = [...allocations]
      .map(([id, units]) => ({ locationId: id, quantity: units }))
      .sort((a, b) => a.locationId - b.locationId);
    this.tables.allocations.set(key, { reservationId, productId, allocations: sorted }, tx);
  }

  async dropBackorder(reservationId: string, productId: number): Promise<void> {
    this.tables.backorders.delete(lineKey(reservationId, productId), this.writable());
  }

  /** Through the references' index, not a scan of every reservation: a hold looks its reference up twice. */
  private byReference(key: string): Reservation | undefined {
    const id = this.tables.references.get(key, this.tx);
    return id === undefined ? undefined : this.withHolds(this.tables.reservations.get(id, this.tx));
  }

  /** The reservation with each line whose hold was recorded answered as held: where its units are, what waits. */
  private withHolds(reservation: Reservation | undefined): Reservation | undefined {
    if (!reservation) return undefined;
    const lines = reservation.lines.map((line): ReservationLine | HeldLine => {
      const key = lineKey(reservation.id, line.productId);
      const allocations = this.tables.allocations.get(key, this.tx)?.allocations;
      const backorder = this.tables.backorders.get(key, this.tx);
      if (!allocations && !backorder) return line;
      return { ...line, allocations: allocations ?? [], backorderedQuantity: backorder?.quantity ?? 0 };
    });
    return { ...reservation, lines };
  }

  private writable(): InMemoryTransaction {
    if (!this.tx) throw new Error('Reservations are written inside a unit of work.');
    return this.tx;
  }
}
