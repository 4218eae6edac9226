import type { Reservation, ReservationStatus } from '../reservation';

/** Reservations of one transaction, or of none (reads). */
export interface ReservationRepository {
  /** Stores a new reservation unless its reference has one; answers which, so a second reservation for a reference answers the first. */
  claim(reservation: Reservation): Promise<'claimed' | 'taken'>;
  findById(id: string): Promise<Reservation | undefined>;
  findByReference(reference: string): Promise<Reservation | undefined>;
  /** Moves a held reservation to `status`; undefined when it is not held (any more). */
  transition(id: string, status: Exclude<ReservationStatus, 'held'>, at: Date): Promise<Reservation | undefined>;
  /**
   * Held reservations whose time is up, at most `limit`, locked for this
   * transaction; rows another transaction holds are skipped, so sweepers on
   * several instances share the work without waiting on each other.
   */
  claimExpired(now: Date, limit: number): Promise<Reservation[]>;
}
