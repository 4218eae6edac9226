import type { Clock, UnitOfWork } from '@platform/kernel';
import type { Reservation, StockTransaction } from '@stock/domain';
import { settleReservation } from './settle-reservation';
import { DEFAULT_STOCK_CHANGE_SETTINGS, type StockChangeSettings } from '../stock/stock-changes';

export class ReleaseReservation {
  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly clock: Clock,
    private readonly settings: StockChangeSettings = DEFAULT_STOCK_CHANGE_SETTINGS,
  ) {}

  /**
   * Held → released: the held quantities are available again, in one
   * transaction. Only `caller`'s own holds: another's, or an order's, throws
   * ReservationNotFoundError.
   */
  execute(id: string, caller: string, { requestId }: { requestId?: string } = {}): Promise<Reservation> {
    return this.unitOfWork.run((tx) =>
      settleReservation(tx, id, 'released', this.clock, { by: 'caller', caller }, requestId, this.settings),
    );
  }
}
