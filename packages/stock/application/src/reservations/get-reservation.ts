import { isReachableBy, type Reservation, ReservationNotFoundError, type ReservationRepository } from '@stock/domain';

export class GetReservation {
  constructor(private readonly reservations: ReservationRepository) {}

  /** A reservation `caller` may reach; another caller's, or an order's, answers exactly as one that does not exist. */
  async execute(id: string, caller: string): Promise<Reservation> {
    const reservation = await this.reservations.findById(id);
    if (!reservation || !isReachableBy(reservation, caller)) throw new ReservationNotFoundError(id);
    return reservation;
  }
}
