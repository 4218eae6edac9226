import { inboxEntry, runOnce, textResult, type UnitOfWork } from '@platform/kernel';
import { type Reservation, ReservationNotHeldError, type StockTransaction } from '@stock/domain';
import type { OrderEvent, OrderEventOutcome, OrderEventSettings } from './order-events';
import { settleReservation } from './settle-reservation';
import { DEFAULT_STOCK_CHANGE_SETTINGS, type StockChangeSettings } from '../stock/stock-changes';

export class ReleaseForOrder {
  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly settings: OrderEventSettings,
  ) {}

  private get changeSettings(): StockChangeSettings {
    return { ...DEFAULT_STOCK_CHANGE_SETTINGS, ...this.settings };
  }

  /**
   * sales.order.cancelled: releases the order's hold (stock.reservation.released
   * is written by the release). When stock has not seen the order placed yet,
   * it leaves a tombstone, a rejected reservation without lines, so that the
   * late placed event is refused instead of held. In one unit of work with
   * the message's inbox entry.
   */
  async execute(event: OrderEvent<'sales.order.cancelled'>): Promise<OrderEventOutcome> {
    const { value, replayed } = await runOnce(
      this.unitOfWork,
      inboxEntry(this.settings.consumer, event),
      textResult,
      async (tx): Promise<OrderEventOutcome> => {
        const { orderId } = event.data;
        let reservation = await tx.reservations.findForOrder(orderId);
        if (!reservation) {
          const now = this.settings.clock();
          const tombstone: Reservation = {
            id: this.settings.newId(),
            reference: orderId,
            origin: 'order',
            status: 'rejected',
            lines: [],
            expiresAt: now,
            createdAt: now,
            updatedAt: now,
          };
          if ((await tx.reservations.claim(tombstone)) === 'claimed') return 'tombstoned';
          // Its placed event was handled meanwhile: release what it held.
          reservation = (await tx.reservations.findForOrder(orderId))!;
        }
        if (reservation.status !== 'held') return 'unchanged';
        try {
          const released = await settleReservation(
            tx,
            reservation.id,
            'released',
            this.settings.clock,
            { by: 'order-flow' },
            event.id,
            this.changeSettings,
          );
          return released.status === 'released' ? 'released' : 'unchanged';
        } catch (error) {
          // Committed meanwhile: a paid order is not cancelled (sales refuses that), so there is nothing to undo here.
          if (error instanceof ReservationNotHeldError) return 'unchanged';
          throw error;
        }
      },
    );
    return replayed ? 'duplicate' : (value as OrderEventOutcome);
  }
}
