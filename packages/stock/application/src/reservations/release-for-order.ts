import { inboxEntry, runOnce, textResult, type UnitOfWork } from '@platform/kernel';
import { type Reservation, ReservationNotHeldError, type StockTransaction } from '@stock/domain';
import type { OrderEvent, OrderEventOutcome, OrderEventSettings } from './order-events';
import { releaseCommitted, settleReservation } from './settle-reservation';
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
        if (reservation.status === 'committed') return this.releaseCommitted(tx, reservation, event);
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
          // Committed meanwhile (paid between the read and the release): its committed units are released.
          if (!(error instanceof ReservationNotHeldError)) throw error;
          const now = (await tx.reservations.findById(reservation.id))!;
          return now.status === 'committed' ? this.releaseCommitted(tx, now, event) : 'unchanged';
        }
      },
    );
    return replayed ? 'duplicate' : (value as OrderEventOutcome);
  }

  /**
   * A paid order cancelled: the units it committed and no shipment took are given back. Sales refuses to cancel an
   * order once anything shipped, but a cancel that raced a shipment can still arrive: only the unshipped part is
   * released, and what shipped stays shipped.
   */
  private async releaseCommitted(
    tx: StockTransaction,
    reservation: Reservation,
    event: OrderEvent<'sales.order.cancelled'>,
  ): Promise<OrderEventOutcome> {
    const shipped = (await this.settings.shippedOf?.(tx, reservation.reference)) ?? [];
    const released = await releaseCommitted(
      tx,
      reservation,
      shipped,
      this.settings.clock(),
      this.changeSettings,
      event.id,
    );
    return released ? 'released' : 'unchanged';
  }
}
