import { type Clock, type OnceResult, runOnce, type UnitOfWork } from '@platform/kernel';
import type { ReservationRequest, StockTransaction } from '@stock/domain';
import { holdStock, type ReservationOutcome, type ReserveStockSettings } from './hold-stock';
import type { WriteOptions } from './options';
import { reservationRecord } from './reservation-record';

export type { ReservationOutcome, ReserveStockSettings };

export class ReserveStock {
  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly settings: ReserveStockSettings,
  ) {}

  /**
   * Holds every line or none, in one transaction. Products are held in id
   * order, so two reservations never wait on each other's rows in opposite
   * orders. A reference that already has a reservation answers it.
   */
  async execute(request: ReservationRequest, { idempotency, requestId }: WriteOptions = {}): Promise<OnceResult<ReservationOutcome>> {
    const reserve = (tx: StockTransaction) => holdStock(tx, request, this.settings, requestId);
    if (idempotency) return runOnce(this.unitOfWork, idempotency, reservationRecord, reserve);
    return { value: await this.unitOfWork.run(reserve), replayed: false };
  }
}
