import type { Reservation, ReservationStatus } from './reservation';
import type { Backorder, Fill, LineHold } from '../stock/levels';

/** Reservations of one transaction, or of none (reads). */
export interface ReservationRepository {
  /**
   * Stores a new reservation unless its reference has one among its owner's
   * holds (an API hold) or among the orders' (an order's); answers which, so a
   * second reservation for a reference answers the first.
   */
  claim(reservation: Reservation): Promise<'claimed' | 'taken'>;
  findById(id: string): Promise<Reservation | undefined>;
  /** The API hold `owner` made for `reference`. */
  findByReference(owner: string, reference: string): Promise<Reservation | undefined>;
  /** The reservation of an order (reference = the order id): its hold, its refusal or its tombstone. */
  findForOrder(orderId: string): Promise<Reservation | undefined>;
  /**
   * `findForOrder`, its row locked until the transaction ends: what ships or returns an order takes it first, so
   * those of one order run one at a time on any number of instances, and before any product's lock.
   */
  lockForOrder(orderId: string): Promise<Reservation | undefined>;
  /**
   * Moves a reservation in `from` (held unless told: an order's committed hold is released from committed) to
   * `status`; undefined when it is not in `from` (any more).
   */
  transition(
    id: string,
    status: Exclude<ReservationStatus, 'held'>,
    at: Date,
    from?: 'held' | 'committed',
  ): Promise<Reservation | undefined>;
  /**
   * Held reservations whose time is up, at most `limit`, locked for this
   * transaction; rows another transaction holds are skipped, so sweepers on
   * several instances share the work without waiting on each other.
   */
  claimExpired(now: Date, limit: number): Promise<Reservation[]>;
  /**
   * Records what a line of a reservation holds: its allocations and its
   * backordered units (which wait behind every unit backordered before them).
   */
  recordHold(reservationId: string, productId: number, hold: LineHold): Promise<void>;
  /** What a line of a reservation holds now (fills move backordered units to allocations). */
  holdOf(reservationId: string, productId: number): Promise<LineHold>;
  /** A product's backordered units that held reservations still wait for, oldest first. */
  backorders(productId: number): Promise<Backorder[]>;
  /** Records a fill: `quantity` of the line's backordered units are now allocated at the fill's location. */
  recordFill(productId: number, fill: Fill): Promise<void>;
  /** A line's backordered units wait no more: its reservation ended without them. */
  dropBackorder(reservationId: string, productId: number): Promise<void>;
}
