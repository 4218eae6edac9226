import { DomainError } from '@platform/kernel';

/**
 * An amount in the currency's minor units (cents for EUR): what a provider counts in. Sales converts its exact
 * `Money` to and from it at this port, so no amount crosses it as a decimal.
 */
export type MinorUnits = number;

/**
 * Where an authorisation stands at the provider, in the words the order's payment uses:
 * `requires_payment_method` until the buyer confirms (or after a decline), `requires_action` while the buyer has a step
 * to take with the provider (3-D Secure), `processing` while the provider decides, then `authorized` (held, not yet
 * taken), `captured` (taken), or `canceled` (released).
 */
export type AuthorisationStatus =
  'requires_payment_method' | 'requires_action' | 'processing' | 'authorized' | 'captured' | 'canceled';

/** A refund at the provider: `pending` until the provider settles it, then `succeeded` or `failed`. */
export type RefundStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';

export interface AuthorisationRequest {
  readonly orderId: string;
  readonly amount: MinorUnits;
  /** ISO 4217, upper case (`EUR`). */
  readonly currency: string;
  /** The same key answers the same authorisation, so a retried request never holds the buyer's money twice. */
  readonly idempotencyKey: string;
}

export interface Authorisation {
  /** The provider's reference (a PaymentIntent's `pi_…`), kept on the order. */
  readonly intentId: string;
  /** What the buyer's client confirms the payment with; a secret for the buyer alone. */
  readonly clientSecret: string;
  readonly status: AuthorisationStatus;
}

export interface CaptureRequest {
  readonly intentId: string;
  /** Less than what was authorised to take part of it (the rest is released); absent, all of it. */
  readonly amount?: MinorUnits;
  readonly idempotencyKey: string;
}

export interface Capture {
  readonly status: AuthorisationStatus;
  readonly capturedAmount: MinorUnits;
}

export interface CancelRequest {
  readonly intentId: string;
  readonly idempotencyKey: string;
}

export interface RefundRequest {
  readonly orderId: string;
  readonly intentId: string;
  readonly amount: MinorUnits;
  /** The merchant's words, kept with the refund at the provider. */
  readonly reason?: string;
  /** The same key answers the same refund: a retried request never gives the money back twice. */
  readonly idempotencyKey: string;
}

export interface Refund {
  readonly refundId: string;
  readonly status: RefundStatus;
}

/** What every decoded event carries: its id (for the inbox) and when the provider made it. */
interface PaymentEventBase {
  /** The provider's event id: the same event delivered twice has the same id. */
  readonly eventId: string;
  /** When the provider made the event (whole seconds), so that one older than the state it would set can be ignored. */
  readonly occurredAt: Date;
  readonly intentId: string;
  /** The order the authorisation was made for; absent for an intent that sales did not create. */
  readonly orderId: string | undefined;
}

/**
 * A provider's webhook, decoded into what sales acts on. `authorized`: the buyer's money is held (`amount` of it);
 * `authorisation_failed`: a confirmation was declined (`reason` says why, in the provider's words); `captured`:
 * `amount` was taken; `canceled`: the authorisation was released; `refunded`: the payment's refunds now total
 * `refundedAmount`; `refund_updated`: one refund moved to `status`; `other`: an event sales does not act on, still to
 * be acknowledged so the provider stops sending it.
 */
export type PaymentEvent =
  | (PaymentEventBase & { readonly kind: 'authorized'; readonly amount: MinorUnits; readonly currency: string })
  | (PaymentEventBase & { readonly kind: 'authorisation_failed'; readonly reason: string; readonly code?: string })
  | (PaymentEventBase & { readonly kind: 'captured'; readonly amount: MinorUnits; readonly currency: string })
  | (PaymentEventBase & { readonly kind: 'canceled' })
  | (PaymentEventBase & {
      readonly kind: 'refunded';
      readonly refundedAmount: MinorUnits;
      readonly currency: string;
    })
  | (PaymentEventBase & {
      readonly kind: 'refund_updated';
      readonly refundId: string;
      readonly amount: MinorUnits;
      readonly currency: string;
      readonly status: RefundStatus;
      readonly failureReason?: string;
    })
  | {
      readonly kind: 'other';
      readonly eventId: string;
      readonly occurredAt: Date;
      /** The provider's name for it (`charge.succeeded`), for the log. */
      readonly providerType: string;
    };

/**
 * Why the provider refused an operation: the authorisation is not in a state that allows it (`unexpected_state`:
 * capturing a canceled one, refunding one not yet captured), the amount is more than what is left
 * (`exceeds_remaining`: a capture beyond what is held, refunds beyond what was captured), no such authorisation
 * (`not_found`), or the request itself was refused (`invalid`: a key reused with other parameters, a bad amount).
 */
export type PaymentRefusalReason = 'unexpected_state' | 'exceeds_remaining' | 'not_found' | 'invalid';

/** The provider refused the operation; nothing changed there. */
export class PaymentRefusedError extends DomainError<'PAYMENT_REFUSED'> {
  readonly code = 'PAYMENT_REFUSED';

  constructor(
    readonly reason: PaymentRefusalReason,
    message: string,
  ) {
    super(message);
  }
}

/** A webhook that did not come from the provider as it was sent: no signature, a bad one, too old, or not an event. */
export class PaymentEventRefusedError extends DomainError<'PAYMENT_EVENT_REFUSED'> {
  readonly code = 'PAYMENT_EVENT_REFUSED';
}

/**
 * The payment provider, as sales uses it: authorise an order's total, capture it at shipment, cancel it, refund part
 * of what was captured, and read the provider's signed webhooks. An adapter that cannot reach the provider throws
 * UnavailableError (nothing is known to have changed; retry with the same key); one the provider refuses throws
 * PaymentRefusedError.
 */
export interface PaymentProvider {
  /** The provider's name, as the order's payment shows it (`stripe`). */
  readonly name: string;
  createAuthorisation(request: AuthorisationRequest): Promise<Authorisation>;
  capture(request: CaptureRequest): Promise<Capture>;
  cancel(request: CancelRequest): Promise<{ readonly status: AuthorisationStatus }>;
  refund(request: RefundRequest): Promise<Refund>;
  /**
   * The event a webhook carries, once its signature is checked over the body exactly as received; throws
   * PaymentEventRefusedError otherwise.
   */
  verifyWebhook(rawBody: Uint8Array | string, signatureHeader: string | undefined): PaymentEvent;
}
