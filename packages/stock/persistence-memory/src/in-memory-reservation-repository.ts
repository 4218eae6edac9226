import type { InMemoryTransaction } from '@platform/memory';
import type { Reservation, ReservationRepository, ReservationStatus } from '@stock/domain';
import type { InMemoryStockTables } from './in-memory-stock-tables';

/** Reservations in an in-memory table. Transactions run one at a time here, so claiming expired ones needs no lock. */
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
    const existing =
      reservation.owner === undefined
        ? await this.findForOrder(reservation.reference)
        : await this.findByReference(reservation.owner, reservation.reference);
    if (existing) return 'taken';
    this.tables.reservations.set(reservation.id, reservation, this.writable());
    return 'claimed';
  }

  async findById(id: string): Promise<Reservation | undefined> {
    return this.tables.reservations.get(id, this.tx);
  }

  async findByReference(owner: string, reference: string): Promise<Reservation | undefined> {
    return this.find(
      (reservation) =>
        reservation.origin === 'api' && reservation.owner === owner && reservation.reference === reference,
    );
  }

  async findForOrder(orderId: string): Promise<Reservation | undefined> {
    return this.find((reservation) => reservation.origin === 'order' && reservation.reference === orderId);
  }

  async transition(id: string, status: Exclude<ReservationStatus, 'held'>, at: Date): Promise<Reservation | undefined> {
    const current = this.tables.reservations.get(id, this.tx);
    if (current?.status !== 'held') return undefined;
    const moved = { ...current, status, updatedAt: at };
    this.tables.reservations.set(id, moved, this.writable());
    return moved;
  }

  async claimExpired(now: Date, limit: number): Promise<Reservation[]> {
    const due: Reservation[] = [];
    for (const reservation of this.tables.reservations.values(this.tx)) {
      if (due.length === limit) break;
      if (reservation.status === 'held' && reservation.expiresAt <= now) due.push(reservation);
    }
    return due.sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime());
  }

  private find(matches: (reservation: Reservation) => boolean): Reservation | undefined {
    for (const reservation of this.tables.reservations.values(this.tx)) if (matches(reservation)) return reservation;
    return undefined;
  }

  private writable(): InMemoryTransaction {
    if (!this.tx) throw new Error('Reservations are written inside a unit of work.');
    return this.tx;
  }
}
