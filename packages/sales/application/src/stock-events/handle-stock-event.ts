import type { EventData, EventEnvelope, IntegrationEvent } from '@commerce/contracts';
import { type Clock, inboxEntry, runOnce, textResult, type UnitOfWork } from '@platform/kernel';
import type { Order, Outcome, SalesTransaction } from '@sales/domain';
import { changeOrder } from '../orders/change-order';

/** What stock publishes about an order: its reservation's fate, then its shipments and returns. */
export const STOCK_EVENT_TYPES = [
  'stock.reservation.confirmed',
  'stock.reservation.confirmed.v2',
  'stock.reservation.rejected',
  'stock.reservation.released',
  'stock.reservation.committed',
  'stock.reservation.commit_failed',
  'stock.reservation.expired',
  'stock.shipment.created',
  'stock.return.received',
] as const;

type StockEventType = (typeof STOCK_EVENT_TYPES)[number];

/** An event stock publishes about an order. */
export type StockEvent = { [T in StockEventType]: EventEnvelope<T, EventData<T>> }[StockEventType];

/** Whether this use case applies `event` (decoded already): the consumer hands it over only then. */
export function isStockEvent(event: IntegrationEvent): event is StockEvent {
  return (STOCK_EVENT_TYPES as readonly string[]).includes(event.type);
}

/**
 * What handling an event did: moved its order on, found it already past it, found no such order, or knew the message.
 */
export type StockEventOutcome = 'applied' | 'unchanged' | 'unknown-order' | 'duplicate';

/** Sales consumes as the system, not as a buyer: events may concern any order. */
const SYSTEM = { kind: 'admin' } as const;

function transition(order: Order, event: StockEvent, at: Date): Outcome {
  switch (event.type) {
    case 'stock.reservation.confirmed':
      // Version 1, from a stock service not upgraded yet (or sent beside v2 for one release): it does not say where.
      return order.reservationConfirmed(event.data.reservationId, new Date(event.data.expiresAt), at);
    case 'stock.reservation.confirmed.v2':
      return order.reservationConfirmed(event.data.reservationId, new Date(event.data.expiresAt), at, event.data.lines);
    case 'stock.reservation.rejected':
      return order.reservationRejected(event.data.shortages, event.data.reason, at);
    case 'stock.reservation.committed':
      return order.reservationCommitted(event.data.reservationId, at);
    case 'stock.reservation.commit_failed':
      return order.commitFailed(event.data.reason, at);
    case 'stock.reservation.expired':
      return order.reservationExpired(event.data.reservationId, at);
    case 'stock.reservation.released':
      // The answer to the buyer's cancel finds the order cancelled; a release made through stock's API cancels it.
      return order.reservationReleased(event.data.reservationId, at);
    case 'stock.shipment.created':
      return order.shipmentCreated(event.data.lines, at);
    case 'stock.return.received':
      // Every disposition counts: units restocked, set aside or missing all settle the return.
      return order.returnReceived(event.data.lines, at);
  }
}

export interface HandleStockEventSettings {
  readonly clock: Clock;
  /** The consumer the inbox records messages for (the queue's name). */
  readonly consumer: string;
}

export class HandleStockEvent {
  constructor(
    private readonly unitOfWork: UnitOfWork<SalesTransaction>,
    private readonly settings: HandleStockEventSettings,
  ) {}

  /**
   * Applies one stock event to its order in one unit of work with its inbox
   * record: a redelivered message (same id) has no second effect, and a second
   * event about the same order (new id) meets the order's guards, so it ends
   * where in-order delivery would. The caller acks the message once this resolves.
   */
  async execute(event: StockEvent): Promise<StockEventOutcome> {
    const { value, replayed } = await runOnce(
      this.unitOfWork,
      inboxEntry(this.settings.consumer, event),
      textResult,
      async (tx): Promise<StockEventOutcome> => {
        const order = await tx.orders.findById(event.data.orderId);
        if (!order) return 'unknown-order';
        const after = await changeOrder(tx, order.id, SYSTEM, this.settings.clock, (current, at) =>
          transition(current, event, at),
        );
        return after.version !== order.version ? 'applied' : 'unchanged';
      },
    );
    return replayed ? 'duplicate' : (value as StockEventOutcome);
  }
}
