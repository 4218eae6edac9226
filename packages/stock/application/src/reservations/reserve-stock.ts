import { type OnceResult, runOnce, type UnitOfWork } from '@platform/kernel';
import type { ReservationRequest, StockTransaction } from '@stock/domain';
import { holdStock, type ReservationOutcome, type ReserveStockSettings } from './hold-stock';
import type { WriteOptions } from '../options';
import { reservationRecord } from './reservation-record';

export type { ReservationOutcome, ReserveStockSettings };

export class ReserveStock {
  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly settings: ReserveStockSettings,
  ) {}

  /**
   * Holds every line or none for `caller`, who owns the hold, in one
   * transaction. Products are held in id order, so two reservations never
   * wait on each other's rows in opposite orders. A reference that already has
   * one of the caller's reservations answers it; another caller's, or an
   * order's, is never answered. (An Idempotency-Key is scoped by its caller
   * where it is read, at the HTTP edge: idempotencyKeyOf.)
   */
  async execute(
    caller: string,
    request: ReservationRequest,
    { idempotency, requestId }: Omit<WriteOptions, 'caller'> = {},
  ): Promise<OnceResult<ReservationOutcome>> {
    const reserve = (tx: StockTransaction) =>
      holdStock(tx, request, this.settings, { origin: 'api', owner: caller }, requestId);
    if (idempotency) return runOnce(this.unitOfWork, idempotency, reservationRecord, reserve);
    return { value: await this.unitOfWork.run(reserve), replayed: false };
  }
}
