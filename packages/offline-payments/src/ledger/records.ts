import type { StripeErrorBody } from '../stripe-error';

/** The statuses of a PaymentIntent this provider reaches (Stripe's, less requires_confirmation and requires_action). */
export type IntentStatus = 'requires_payment_method' | 'requires_capture' | 'succeeded' | 'canceled';

export type CaptureMethod = 'automatic' | 'automatic_async' | 'manual';

export type CancellationReason = 'duplicate' | 'fraudulent' | 'requested_by_customer' | 'abandoned';

/** The charge a confirmation makes: the money held, then taken, then given back in part or whole. */
export interface ChargeRecord {
  readonly id: string;
  readonly created: number;
  readonly amount: number;
  amountCaptured: number;
  /** Refunds pending or succeeded: what cannot be refunded again. */
  amountRefunded: number;
  captured: boolean;
  readonly status: 'succeeded' | 'failed';
  readonly paymentMethod: string;
  readonly refundsFail: boolean;
}

export interface IntentRecord {
  readonly id: string;
  readonly created: number;
  readonly amount: number;
  readonly currency: string;
  readonly captureMethod: CaptureMethod;
  readonly metadata: Readonly<Record<string, string>>;
  readonly description: string | null;
  readonly clientSecret: string;
  status: IntentStatus;
  amountCapturable: number;
  amountReceived: number;
  canceledAt: number | null;
  cancellationReason: CancellationReason | null;
  paymentMethod: string | null;
  lastPaymentError: StripeErrorBody | null;
  charge: ChargeRecord | undefined;
}

export type RefundStatus = 'pending' | 'succeeded' | 'failed';

export type RefundReason = 'duplicate' | 'fraudulent' | 'requested_by_customer';

export interface RefundRecord {
  readonly id: string;
  readonly created: number;
  readonly amount: number;
  readonly currency: string;
  readonly intentId: string;
  readonly chargeId: string;
  readonly reason: RefundReason | null;
  readonly metadata: Readonly<Record<string, string>>;
  status: RefundStatus;
  failureReason: string | undefined;
}
