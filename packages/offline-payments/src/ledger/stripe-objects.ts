import type { ChargeRecord, IntentRecord, RefundRecord } from './records';

/**
 * The JSON of each object as Stripe's API answers it: every field Stripe sends for a card PaymentIntent, Refund or
 * Charge with manual capture, null where this provider has nothing to say (no customer, no Connect, no shipping).
 */
export function intentObject(intent: IntentRecord): Record<string, unknown> {
  return {
    id: intent.id,
    object: 'payment_intent',
    amount: intent.amount,
    amount_capturable: intent.amountCapturable,
    amount_details: { tip: {} },
    amount_received: intent.amountReceived,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: intent.canceledAt,
    cancellation_reason: intent.cancellationReason,
    capture_method: intent.captureMethod,
    client_secret: intent.clientSecret,
    confirmation_method: 'automatic',
    created: intent.created,
    currency: intent.currency,
    customer: null,
    description: intent.description,
    last_payment_error: intent.lastPaymentError,
    latest_charge: intent.charge?.id ?? null,
    livemode: false,
    metadata: intent.metadata,
    next_action: null,
    on_behalf_of: null,
    payment_method: intent.paymentMethod,
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: ['card'],
    processing: null,
    receipt_email: null,
    review: null,
    setup_future_usage: null,
    shipping: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: intent.status,
    transfer_data: null,
    transfer_group: null,
  };
}

export function refundObject(refund: RefundRecord): Record<string, unknown> {
  return {
    id: refund.id,
    object: 'refund',
    amount: refund.amount,
    balance_transaction: null,
    charge: refund.chargeId,
    created: refund.created,
    currency: refund.currency,
    ...(refund.status === 'failed' && { failure_reason: refund.failureReason }),
    metadata: refund.metadata,
    payment_intent: refund.intentId,
    reason: refund.reason,
    receipt_number: null,
    source_transfer_reversal: null,
    status: refund.status,
    transfer_reversal: null,
  };
}

/** A charge as charge.refunded carries it; the PaymentIntent's metadata is copied onto it, as Stripe does. */
export function chargeObject(charge: ChargeRecord, intent: IntentRecord): Record<string, unknown> {
  return {
    id: charge.id,
    object: 'charge',
    amount: charge.amount,
    amount_captured: charge.amountCaptured,
    amount_refunded: charge.amountRefunded,
    captured: charge.captured,
    created: charge.created,
    currency: intent.currency,
    livemode: false,
    metadata: intent.metadata,
    paid: charge.status === 'succeeded',
    payment_intent: intent.id,
    payment_method: charge.paymentMethod,
    refunded: charge.amountRefunded === charge.amountCaptured && charge.amountCaptured > 0,
    status: charge.status,
  };
}
