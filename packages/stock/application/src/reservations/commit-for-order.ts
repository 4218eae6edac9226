import { newEvent } from '@commerce/contracts';
import { inboxEntry, runOnce, textResult, type UnitOfWork } from '@platform/kernel';
import { ReservationNotHeldError, type StockTransaction } from '@stock/domain';
import type { OrderEvent, OrderEventOutcome, OrderEventSettings } from './order-events';
import { settleReservation } from './settle-reservation';
import { DEFAULT_STOCK_CHANGE_SETTINGS, type StockChangeSettings } from '../stock/stock-changes';

export class CommitForOrder {
  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly settings: OrderEventSettings,
  ) {}

  private get changeSettings(): StockChangeSettings {
    return { ...DEFAULT_STOCK_CHANGE_SETTINGS, ...this.settings };
  }

  /**
   * sales.order.paid: commits the order's hold, so its quantities wait as
   * committed at their locations, on hand until a shipment takes them, and
   * never expire (stock.reservation.committed is written by the commit). When the
   * hold is gone (it expired before the payment, or was released), publishes
   * stock.reservation.commit_failed saying why: the order is never completed
   * on stock that is not there. In one unit of work with the inbox entry.
   */
  async execute(event: OrderEvent<'sales.order.paid'>): Promise<OrderEventOutcome> {
    const { value, replayed } = await runOnce(
      this.unitOfWork,
      inboxEntry(this.settings.consumer, event),
      textResult,
      async (tx): Promise<OrderEventOutcome> => {
        const { orderId } = event.data;
        const reservation = await tx.reservations.findForOrder(orderId);
        if (reservation?.status === 'committed') return 'unchanged';
        if (reservation?.status === 'held') {
          try {
            await settleReservation(
              tx,
              reservation.id,
              'committed',
              this.settings.clock,
              { by: 'order-flow' },
              event.id,
              this.changeSettings,
            );
            return 'committed';
          } catch (error) {
            // It expired or was released between the read and the commit: answered below, as it is now.
            if (!(error instanceof ReservationNotHeldError)) throw error;
          }
        }
        const current = reservation && (await tx.reservations.findById(reservation.id));
        if (current?.status === 'committed') return 'unchanged';
        const reason = current
          ? `the reservation is ${current.status}: its stock is no longer held`
          : 'stock holds no reservation for this order';
        await tx.outbox.add(newEvent('stock.reservation.commit_failed', { orderId, reason }, this.settings.clock()));
        return 'commit-failed';
      },
    );
    return replayed ? 'duplicate' : (value as OrderEventOutcome);
  }
}
