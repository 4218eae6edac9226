import type { PaymentEvent, RefundStatus } from '@sales/domain';
import type Stripe from 'stripe';

const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === 'string' ? value : (value?.id ?? undefined);

/** The provider-neutral status of a Stripe refund (`requires_action` is still pending for sales). */
export function refundStatusOf(status: string | null): RefundStatus {
  return status === 'succeeded' || status === 'failed' || status === 'canceled' ? status : 'pending';
}

/**
 * A verified Stripe event in sales' words, by its type; one sales does not act on, or one about money no
 * PaymentIntent holds, is `other`.
 */
export function paymentEventOf(event: Stripe.Event): PaymentEvent {
  const base = { eventId: event.id, occurredAt: new Date(event.created * 1000) };
  const other: PaymentEvent = { kind: 'other', ...base, providerType: event.type };
  const about = (intentId: string | undefined, metadata: Stripe.Metadata | null | undefined) =>
    intentId === undefined ? undefined : { ...base, intentId, orderId: metadata?.order_id };
  switch (event.type) {
    case 'payment_intent.amount_capturable_updated':
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
    case 'payment_intent.canceled': {
      const intent = event.data.object;
      const on = about(intent.id, intent.metadata)!;
      const currency = intent.currency.toUpperCase();
      if (event.type === 'payment_intent.amount_capturable_updated')
        return { kind: 'authorized', ...on, amount: intent.amount_capturable, currency };
      if (event.type === 'payment_intent.succeeded')
        return { kind: 'captured', ...on, amount: intent.amount_received, currency };
      if (event.type === 'payment_intent.canceled') return { kind: 'canceled', ...on };
      const error = intent.last_payment_error;
      const code = error?.decline_code ?? error?.code;
      return {
        kind: 'authorisation_failed',
        ...on,
        reason: error?.message ?? 'The payment was declined.',
        ...(code && { code }),
      };
    }
    case 'charge.refunded': {
      const charge = event.data.object;
      const on = about(idOf(charge.payment_intent), charge.metadata);
      if (!on) return other;
      return {
        kind: 'refunded',
        ...on,
        refundedAmount: charge.amount_refunded,
        currency: charge.currency.toUpperCase(),
      };
    }
    case 'refund.updated': {
      const refund = event.data.object;
      const on = about(idOf(refund.payment_intent), refund.metadata);
      if (!on) return other;
      return {
        kind: 'refund_updated',
        ...on,
        refundId: refund.id,
        amount: refund.amount,
        currency: refund.currency.toUpperCase(),
        status: refundStatusOf(refund.status),
        ...(refund.failure_reason && { failureReason: refund.failure_reason }),
      };
    }
    default:
      return other;
  }
}
