import { newEvent } from '@commerce/contracts';
import { inboxEntry, runOnce, textResult, type UnitOfWork } from '@platform/kernel';
import {
  type Reservation,
  ReservationRequest,
  StockShortageError,
  type StockTransaction,
  UnknownProductsError,
} from '@stock/domain';
import { holdStock } from './hold-stock';
import type { OrderEvent, OrderEventOutcome, OrderEventSettings } from './order-events';

/** A reservation with no lines that refuses its order: the order was cancelled before stock saw it placed. */
export function isTombstone(reservation: Reservation): boolean {
  return reservation.status === 'rejected' && reservation.lines.length === 0;
}

/**
 * Publishes an order's hold: stock.reservation.confirmed.v2 with each line's
 * allocations, and v1 beside it for a sales instance that reads only v1
 * during a rolling upgrade (docs/events.md).
 */
async function confirm(tx: StockTransaction, reservation: Reservation): Promise<void> {
  const { reference: orderId, id: reservationId, createdAt } = reservation;
  const expiresAt = reservation.expiresAt.toISOString();
  const lines = reservation.lines.map((line) => ({
    productId: line.productId,
    quantity: line.quantity,
    allocations:
      'allocations' in line ? line.allocations.map(({ locationId, quantity }) => ({ locationId, quantity })) : [],
  }));
  await tx.outbox.add(
    newEvent('stock.reservation.confirmed.v2', { orderId, reservationId, expiresAt, lines }, createdAt),
  );
  await tx.outbox.add(newEvent('stock.reservation.confirmed', { orderId, reservationId, expiresAt }, createdAt));
}

export class ReserveForOrder {
  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly settings: OrderEventSettings,
  ) {}

  /**
   * sales.order.placed: holds every line of the order (reference = the order
   * id) and publishes stock.reservation.confirmed; or, when stock is short or
   * a product is gone, records the refusal (a rejected reservation, so that a
   * repeat of the event is refused too, even after a restock) and publishes
   * stock.reservation.rejected. Each in one unit of work with the message's
   * inbox entry. An order that already has a reservation is not held twice; a
   * tombstone (its cancel came first) answers rejected, order-cancelled.
   */
  async execute(event: OrderEvent<'sales.order.placed'>): Promise<OrderEventOutcome> {
    const inbox = inboxEntry(this.settings.consumer, event);
    const request = ReservationRequest.create({ reference: event.data.orderId, lines: event.data.lines });
    const once = async (work: (tx: StockTransaction) => Promise<OrderEventOutcome>) => {
      const { value, replayed } = await runOnce(this.unitOfWork, inbox, textResult, work);
      return replayed ? 'duplicate' : (value as OrderEventOutcome);
    };
    try {
      return await once(async (tx) => {
        const { reservation, created } = await holdStock(tx, request, this.settings, { origin: 'order' }, event.id);
        if (!created) return this.answerAgain(tx, reservation);
        await confirm(tx, reservation);
        return 'held';
      });
    } catch (error) {
      if (!(error instanceof StockShortageError || error instanceof UnknownProductsError)) throw error;
      // The hold rolled back with its inbox entry; the refusal is recorded under the same message id.
      return once((tx) => this.refuse(tx, request, error));
    }
  }

  private async refuse(
    tx: StockTransaction,
    request: ReservationRequest,
    error: StockShortageError | UnknownProductsError,
  ): Promise<OrderEventOutcome> {
    const now = this.settings.clock();
    const refusal: Reservation = {
      id: this.settings.newId(),
      reference: request.reference,
      origin: 'order',
      status: 'rejected',
      lines: request.lines,
      expiresAt: now,
      createdAt: now,
      updatedAt: now,
    };
    if ((await tx.reservations.claim(refusal)) === 'taken')
      return this.answerAgain(tx, (await tx.reservations.findForOrder(request.reference))!);
    const shortages =
      error instanceof StockShortageError
        ? error.shortages.map(({ productId, requested, available }) => ({ productId, requested, available }))
        : [];
    const reason = error instanceof StockShortageError ? 'insufficient-stock' : 'unknown-products';
    await tx.outbox.add(newEvent('stock.reservation.rejected', { orderId: request.reference, reason, shortages }, now));
    return 'rejected';
  }

  /**
   * A placed event for an order stock already answered: nothing is held again, and only a tombstone answers (once
   * more).
   */
  private async answerAgain(tx: StockTransaction, reservation: Reservation): Promise<OrderEventOutcome> {
    if (!isTombstone(reservation)) return 'unchanged';
    await tx.outbox.add(
      newEvent(
        'stock.reservation.rejected',
        { orderId: reservation.reference, reason: 'order-cancelled', shortages: [] },
        this.settings.clock(),
      ),
    );
    return 'rejected';
  }
}
