import type { Clock, UnitOfWork } from '@platform/kernel';
import type { Reservation, StockTransaction } from '@stock/domain';
import { expireReservations } from './settle-reservation';
import { DEFAULT_STOCK_CHANGE_SETTINGS, type StockChangeSettings } from '../stock/stock-changes';

export class ExpireReservations {
  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly clock: Clock,
    private readonly settings: StockChangeSettings = DEFAULT_STOCK_CHANGE_SETTINGS,
  ) {}

  /**
   * Expires up to `limit` held reservations whose time is up, in one
   * transaction, and answers them. Safe with any number of instances: each
   * claims rows the others do not hold, and settles their products in product
   * id order, as reservations lock them, so it deadlocks with none of them.
   */
  execute(limit = 100): Promise<Reservation[]> {
    return this.unitOfWork.run(async (tx) => {
      const due = await tx.reservations.claimExpired(this.clock(), limit);
      return expireReservations(
        tx,
        due.map((reservation) => reservation.id),
        this.clock,
        this.settings,
      );
    });
  }
}
