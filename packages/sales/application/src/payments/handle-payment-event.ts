import { newEvent } from '@commerce/contracts';
import { type Clock, inboxEntry, runOnce, UnavailableError, type UnitOfWork } from '@platform/kernel';
import { fromMinorUnits, type Order, type Outcome, type PaymentEvent, type SalesTransaction } from '@sales/domain';
import { changeOrder } from '../orders/change-order';

/**
 * What handling a provider's event did: moved its order's payment on, found it already past it (or the event older
 * than it), found no such order, knew the event, or was not about an order's money at all.
 */
export type PaymentEventOutcome = 'applied' | 'unchanged' | 'unknown-order' | 'duplicate' | 'ignored';

export interface PaymentEventResult {
  readonly outcome: PaymentEventOutcome;
  /** Why an authorisation is being given back, when this event made it so: for a warning in the log. */
  readonly warning?: string;
}

/** The inbox's consumer name for the provider's webhooks. */
export const PAYMENT_EVENTS_CONSUMER = 'payment-events';

const SYSTEM = { kind: 'admin' } as const;

type OrderEvent = Exclude<PaymentEvent, { kind: 'other' }>;

function transition(order: Order, event: OrderEvent, at: Date): Outcome {
  const { intentId, occurredAt } = event;
  switch (event.kind) {
    case 'authorized':
      return order.paymentAuthorized(intentId, fromMinorUnits(event.amount), event.currency, occurredAt, at);
    case 'authorisation_failed':
      return order.authorisationFailed(intentId, event.reason, occurredAt, at);
    case 'captured':
      return order.paymentCaptured(intentId, fromMinorUnits(event.amount), at, occurredAt);
    case 'canceled':
      return order.paymentCanceled(intentId, at, occurredAt);
    case 'refund_updated':
      return order.refundSettled(event.refundId, event.status, at, event.failureReason);
    case 'refunded':
      // The total the provider refunded: each refund's own event settles it, so this adds nothing.
      return { changed: false, order };
  }
}

export interface HandlePaymentEventSettings {
  readonly clock: Clock;
}

export class HandlePaymentEvent {
  constructor(
    private readonly unitOfWork: UnitOfWork<SalesTransaction>,
    private readonly settings: HandlePaymentEventSettings,
  ) {}

  /**
   * Applies one verified provider event to its order, with its inbox record, in one unit of work: the same event
   * again has no second effect, and every event meets the payment's guards, so duplicates, reordering and late events
   * end where in-order delivery would. An authorisation of the order's total pays a reserved order and writes
   * sales.order.paid (stock commits the hold). A refund's event that comes before sales recorded the provider's id
   * for it throws UnavailableError: nothing is recorded, and the provider's retry finds it.
   */
  async execute(event: PaymentEvent): Promise<PaymentEventResult> {
    if (event.kind === 'other' || event.orderId === undefined) return { outcome: 'ignored' };
    const orderId = event.orderId;
    let warning: string | undefined;
    const { value, replayed } = await runOnce(
      this.unitOfWork,
      inboxEntry(PAYMENT_EVENTS_CONSUMER, { id: event.eventId, type: event.kind, data: event }),
      { serialise: (text: PaymentEventOutcome) => text, deserialise: (text) => text as PaymentEventOutcome },
      async (tx): Promise<PaymentEventOutcome> => {
        const order = await tx.orders.findById(orderId, { lock: true });
        if (!order) return 'unknown-order';
        if (event.kind === 'refund_updated' && !order.refunds.some((r) => r.providerRefundId === event.refundId))
          if (order.awaitsProviderRefund())
            throw new UnavailableError(
              'PAYMENT_EVENT_UNAVAILABLE',
              `Refund ${event.refundId} of order ${orderId} is not recorded yet: send the event again.`,
            );
        const after = await changeOrder(
          tx,
          orderId,
          SYSTEM,
          this.settings.clock,
          (current, at) => transition(current, event, at),
          async (changed, at) => {
            if (changed.status === 'paid' && order.status === 'reserved')
              await tx.outbox.add(newEvent('sales.order.paid', { orderId: changed.id }, at));
          },
        );
        if (after.version === order.version) return 'unchanged';
        if (event.kind === 'authorized' && after.payment?.lastError !== undefined) warning = after.payment.lastError;
        return 'applied';
      },
    );
    return replayed ? { outcome: 'duplicate' } : { outcome: value, ...(warning && { warning }) };
  }
}
