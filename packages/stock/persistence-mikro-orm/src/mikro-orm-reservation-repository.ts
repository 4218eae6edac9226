import { type Row, type SqlSession, timeOf } from '@platform/mikro-orm';
import type {
  Reservation,
  ReservationLine,
  ReservationOrigin,
  ReservationRepository,
  ReservationStatus,
} from '@stock/domain';

const COLUMNS = '"id", "reference", "origin", "owner", "status", "lines", "expires_at", "created_at", "updated_at"';

/**
 * A reference is unique among one owner's API holds, and among the orders'
 * holds: each claim names the partial unique index of its own kind, so a
 * caller's reference never meets another caller's, nor an order's.
 */
const CONFLICT_TARGET = {
  api: `("owner", "reference") where "origin" = 'api'`,
  order: `("reference") where "origin" = 'order'`,
} as const;

/** Reservations through MikroORM, one statement per call on the session handed over. */
export class MikroOrmReservationRepository implements ReservationRepository {
  constructor(private readonly session: SqlSession) {}

  async claim(reservation: Reservation): Promise<'claimed' | 'taken'> {
    // On PostgreSQL a second transaction claiming the same reference (of the same owner) waits here for the first to
    // end.
    const rows = await this.session.all(
      `insert into "reservation" (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ${CONFLICT_TARGET[reservation.origin]} do nothing returning "id"`,
      [
        reservation.id,
        reservation.reference,
        reservation.origin,
        reservation.owner ?? null,
        reservation.status,
        JSON.stringify(reservation.lines),
        this.time(reservation.expiresAt),
        this.time(reservation.createdAt),
        this.time(reservation.updatedAt),
      ],
    );
    return rows.length > 0 ? 'claimed' : 'taken';
  }

  async findById(id: string): Promise<Reservation | undefined> {
    const [row] = await this.session.all(`select ${COLUMNS} from "reservation" where "id" = ?`, [id]);
    return row && this.toReservation(row);
  }

  async findByReference(owner: string, reference: string): Promise<Reservation | undefined> {
    const [row] = await this.session.all(
      `select ${COLUMNS} from "reservation" where "origin" = 'api' and "owner" = ? and "reference" = ?`,
      [owner, reference],
    );
    return row && this.toReservation(row);
  }

  async findForOrder(orderId: string): Promise<Reservation | undefined> {
    const [row] = await this.session.all(
      `select ${COLUMNS} from "reservation" where "origin" = 'order' and "reference" = ?`,
      [orderId],
    );
    return row && this.toReservation(row);
  }

  async transition(id: string, status: Exclude<ReservationStatus, 'held'>, at: Date): Promise<Reservation | undefined> {
    const [row] = await this.session.all(
      `update "reservation" set "status" = ?, "updated_at" = ? where "id" = ? and "status" = 'held' returning ${COLUMNS}`,
      [status, this.time(at), id],
    );
    return row && this.toReservation(row);
  }

  async claimExpired(now: Date, limit: number): Promise<Reservation[]> {
    const lock = this.session.dialect === 'postgresql' ? ' for update skip locked' : '';
    const rows = await this.session.all(
      `select ${COLUMNS} from "reservation" where "status" = 'held' and "expires_at" <= ? order by "expires_at" limit ?${lock}`,
      [this.time(now), limit],
    );
    return rows.map((row) => this.toReservation(row));
  }

  /** timestamptz on PostgreSQL (sent as ISO text), epoch milliseconds on SQLite. */
  private time(date: Date): string | number {
    return this.session.dialect === 'postgresql' ? date.toISOString() : date.getTime();
  }

  private toReservation(row: Row): Reservation {
    return {
      id: String(row.id),
      reference: String(row.reference),
      origin: row.origin as ReservationOrigin,
      ...(row.owner != null && { owner: String(row.owner) }),
      status: row.status as ReservationStatus,
      lines: JSON.parse(String(row.lines)) as ReservationLine[],
      expiresAt: timeOf(row.expires_at),
      createdAt: timeOf(row.created_at),
      updatedAt: timeOf(row.updated_at),
    };
  }
}
