import { invalidRequest, noSuch, StripeError, type StripeErrorBody } from '../stripe-error';
import { clientSecretFor, stripeId } from './ids';
import type {
  CancellationReason,
  CaptureMethod,
  ChargeRecord,
  IntentRecord,
  RefundReason,
  RefundRecord,
} from './records';
import { chargeObject, intentObject, refundObject } from './stripe-objects';
import { TEST_CARDS, type TestCard } from './test-cards';

/** The events this provider sends, each when Stripe sends it. */
export const EVENT_TYPES = [
  'payment_intent.amount_capturable_updated',
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.canceled',
  'charge.refunded',
  'refund.updated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Hands an event's type and object (as it is at that moment) to whoever sends them. */
export type Publish = (type: EventType, object: Record<string, unknown>) => void;

export interface NewIntent {
  readonly amount: number;
  readonly currency: string;
  readonly captureMethod: CaptureMethod;
  readonly metadata: Record<string, string>;
  readonly description: string | null;
}

export interface NewRefund {
  readonly intentId: string;
  readonly amount: number | undefined;
  readonly reason: RefundReason | null;
  readonly metadata: Record<string, string>;
}

/** "€12.50": an amount in minor units as Stripe's messages show it. */
function shown(amount: number, currency: string): string {
  return new Intl.NumberFormat('en-IE', { style: 'currency', currency }).format(amount / 100);
}

/** The statuses from which Stripe allows each action on a PaymentIntent, by the action's past participle. */
const ALLOWED_FROM = {
  confirmed: ['requires_payment_method', 'requires_confirmation', 'requires_action'],
  captured: ['requires_capture'],
  canceled: ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'],
} as const;

function unexpectedState(intent: IntentRecord, action: keyof typeof ALLOWED_FROM): StripeError {
  return invalidRequest(
    `This PaymentIntent could not be ${action} because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be ${action}: ${ALLOWED_FROM[action].join(', ')}.`,
    { code: 'payment_intent_unexpected_state' },
  );
}

const allows = (action: keyof typeof ALLOWED_FROM, intent: IntentRecord) =>
  (ALLOWED_FROM[action] as readonly string[]).includes(intent.status);

/**
 * Every PaymentIntent, charge and refund of this provider, in memory, and the
 * rules Stripe applies to them: a card confirmation authorises (manual
 * capture) or takes the money (automatic) or is declined; capture takes at
 * most what is held; cancel releases what is held; refunds never exceed what
 * was captured less what is refunded or pending. Each change publishes the
 * event Stripe sends for it. Methods run to completion without awaiting, so
 * two requests never interleave inside one.
 */
export class PaymentLedger {
  private readonly intents = new Map<string, IntentRecord>();
  private readonly refunds = new Map<string, RefundRecord>();

  constructor(
    private readonly publish: Publish,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  createIntent(request: NewIntent): Record<string, unknown> {
    const id = stripeId('pi');
    const intent: IntentRecord = {
      id,
      created: this.now(),
      ...request,
      clientSecret: clientSecretFor(id),
      status: 'requires_payment_method',
      amountCapturable: 0,
      amountReceived: 0,
      canceledAt: null,
      cancellationReason: null,
      paymentMethod: null,
      lastPaymentError: null,
      charge: undefined,
    };
    this.intents.set(id, intent);
    return intentObject(intent);
  }

  retrieveIntent(id: string): Record<string, unknown> {
    return intentObject(this.intent(id));
  }

  confirmIntent(id: string, paymentMethod: string): Record<string, unknown> {
    const intent = this.intent(id);
    if (!allows('confirmed', intent)) throw unexpectedState(intent, 'confirmed');
    const card = TEST_CARDS[paymentMethod];
    if (!card) throw noSuch('PaymentMethod', paymentMethod, 'payment_method');
    return card.outcome === 'declined' ? this.decline(intent, card) : this.authorise(intent, card);
  }

  captureIntent(id: string, amountToCapture: number | undefined): Record<string, unknown> {
    const intent = this.intent(id);
    if (!allows('captured', intent)) throw unexpectedState(intent, 'captured');
    const amount = amountToCapture ?? intent.amountCapturable;
    if (amount > intent.amountCapturable)
      throw invalidRequest(
        `The amount to capture (${shown(amount, intent.currency)}) is greater than the amount capturable (${shown(intent.amountCapturable, intent.currency)}).`,
        { code: 'amount_too_large', param: 'amount_to_capture' },
      );
    this.take(intent, amount);
    return intentObject(intent);
  }

  cancelIntent(id: string, reason: CancellationReason | null): Record<string, unknown> {
    const intent = this.intent(id);
    if (!allows('canceled', intent)) throw unexpectedState(intent, 'canceled');
    Object.assign(intent, {
      status: 'canceled',
      amountCapturable: 0,
      canceledAt: this.now(),
      cancellationReason: reason,
    });
    this.publish('payment_intent.canceled', intentObject(intent));
    return intentObject(intent);
  }

  /**
   * A refund starts `pending` and settles at once, its refund.updated (and, when it succeeds, charge.refunded)
   * published after the answer is made: the receiver must settle it from the webhook, as with Stripe's slower methods.
   */
  createRefund(request: NewRefund): Record<string, unknown> {
    const intent = this.intent(request.intentId, 'payment_intent');
    const charge = intent.charge;
    if (intent.status !== 'succeeded' || !charge)
      throw invalidRequest(`This PaymentIntent (${intent.id}) does not have a successful charge to refund.`, {
        code: 'payment_intent_unexpected_state',
        param: 'payment_intent',
      });
    const remaining = charge.amountCaptured - charge.amountRefunded;
    if (remaining === 0)
      throw invalidRequest(`Charge ${charge.id} has already been refunded.`, { code: 'charge_already_refunded' });
    const amount = request.amount ?? remaining;
    if (amount > remaining)
      throw invalidRequest(
        `Refund amount (${shown(amount, intent.currency)}) is greater than unrefunded amount on charge (${shown(remaining, intent.currency)})`,
        { param: 'amount' },
      );
    const refund: RefundRecord = {
      id: stripeId('re'),
      created: this.now(),
      amount,
      currency: intent.currency,
      intentId: intent.id,
      chargeId: charge.id,
      reason: request.reason,
      metadata: request.metadata,
      status: 'pending',
      failureReason: undefined,
    };
    this.refunds.set(refund.id, refund);
    charge.amountRefunded += amount;
    const answer = refundObject(refund);
    this.settle(refund, intent, charge);
    return answer;
  }

  retrieveRefund(id: string): Record<string, unknown> {
    const refund = this.refunds.get(id);
    if (!refund) throw noSuch('refund', id, 'id');
    return refundObject(refund);
  }

  private intent(id: string, param = 'intent'): IntentRecord {
    const intent = this.intents.get(id);
    if (!intent) throw noSuch('payment_intent', id, param);
    return intent;
  }

  private newCharge(intent: IntentRecord, card: TestCard): ChargeRecord {
    const paymentMethod = stripeId('pm');
    return {
      id: stripeId('ch'),
      created: this.now(),
      amount: intent.amount,
      amountCaptured: 0,
      amountRefunded: 0,
      captured: false,
      status: card.outcome === 'declined' ? 'failed' : 'succeeded',
      paymentMethod,
      refundsFail: card.outcome === 'authorised' && card.refundsFail === true,
    };
  }

  private authorise(intent: IntentRecord, card: TestCard): Record<string, unknown> {
    const charge = this.newCharge(intent, card);
    Object.assign(intent, {
      paymentMethod: charge.paymentMethod,
      lastPaymentError: null,
      charge,
      status: 'requires_capture',
      amountCapturable: intent.amount,
    });
    if (intent.captureMethod === 'manual')
      this.publish('payment_intent.amount_capturable_updated', intentObject(intent));
    else this.take(intent, intent.amount);
    return intentObject(intent);
  }

  private decline(intent: IntentRecord, card: TestCard & { outcome: 'declined' }): never {
    const charge = this.newCharge(intent, card);
    const error: StripeErrorBody = new StripeError(402, {
      type: 'card_error',
      code: 'card_declined',
      decline_code: card.declineCode,
      message: card.message,
      charge: charge.id,
    }).body;
    // Stripe detaches the declined method: the buyer confirms again with another.
    Object.assign(intent, { charge, lastPaymentError: error, paymentMethod: null, status: 'requires_payment_method' });
    this.publish('payment_intent.payment_failed', intentObject(intent));
    throw new StripeError(402, { ...error, payment_intent: intentObject(intent) });
  }

  private take(intent: IntentRecord, amount: number): void {
    const charge = intent.charge!;
    charge.amountCaptured = amount;
    charge.captured = true;
    Object.assign(intent, { status: 'succeeded', amountCapturable: 0, amountReceived: amount });
    this.publish('payment_intent.succeeded', intentObject(intent));
  }

  private settle(refund: RefundRecord, intent: IntentRecord, charge: ChargeRecord): void {
    if (charge.refundsFail) {
      Object.assign(refund, { status: 'failed', failureReason: 'declined' });
      charge.amountRefunded -= refund.amount;
      this.publish('refund.updated', refundObject(refund));
      return;
    }
    refund.status = 'succeeded';
    this.publish('refund.updated', refundObject(refund));
    this.publish('charge.refunded', chargeObject(charge, intent));
  }
}
