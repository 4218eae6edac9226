import { type Reservation, ReservationNotFoundError, type ReservationRepository } from '@stock/domain';

export class GetReservation {
  constructor(private readonly reservations: ReservationRepository) {}

  async execute(id: string): Promise<Reservation> {
    const reservation = await this.reservations.findById(id);
    if (!reservation) throw new ReservationNotFoundError(id);
    return reservation;
  }
}
