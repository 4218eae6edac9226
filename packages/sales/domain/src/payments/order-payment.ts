import { Money } from '@commerce/shared-kernel';
import { Invalid } from '@platform/kernel';
import type { MinorUnits } from './payment-provider';

/**
 * Where an order's payment stands, as the order shows it: `requires_payment_method` (nothing authorised yet, or a
 * confirmation was declined: lastError says why), `authorized` (the buyer's money is held), `captured` (taken, at the
 * first shipment), `canceled` (the hold was released: nothing was taken), `refunded` (everything taken was given back).
 */
export type PaymentStatus = 'requires_payment_method' | 'authorized' | 'captured' | 'canceled' | 'refunded';

/** The authorisation the provider holds for an order, and what became of it. */
export interface OrderPayment {
  /** The provider's name (`stripe`). */
  readonly provider: string;
  /** The provider's reference (`pi_…`). */
  readonly intentId: string;
  /** What the buyer confirms the payment with; shown to the order's buyer alone. */
  readonly clientSecret: string;
  readonly status: PaymentStatus;
  /** What was asked for: the order's total when the authorisation was made. */
  readonly amount: Money;
  /** ISO 4217, upper case. */
  readonly currency: string;
  readonly capturedAmount: Money;
  /** The refunds that succeeded, summed. */
  readonly refundedAmount: Money;
  /**
   * Why the last confirmation was declined, why sales gave the authorisation back, or why the provider refused for good
   * the call sales owed it (refusedCall).
   */
  readonly lastError?: string;
  /**
   * The call the provider refused for good (a 4xx other than a rate limit or a conflict: capturing an authorisation it
   * no longer holds, cancelling one it took): sales does not make it again; lastError says why. Someone has to look.
   */
  readonly refusedCall?: RefusableCall;
  /** When the provider made the last event sales applied: an older one would move the payment backwards. */
  readonly lastEventAt?: Date;
}

export type OrderRefundStatus = 'pending' | 'succeeded' | 'failed';

/** Money given back of what was captured: asked for by a merchant, or by sales for an order that died after capture. */
export interface OrderRefund {
  /** Sales' id (a UUID), also the idempotency key of the provider's refund. */
  readonly id: string;
  readonly amount: Money;
  readonly reason: string;
  readonly status: OrderRefundStatus;
  /** The provider's refund (`re_…`), once it made it. */
  readonly providerRefundId?: string;
  /** Why the provider did not give it back (failed). */
  readonly failureReason?: string;
  readonly createdAt: Date;
}

/**
 * What sales still owes the provider for an order: a call, made outside any transaction by the payment worker
 * (PerformPaymentWork), its result recorded on the order afterwards.
 */
export type PaymentWork =
  | { readonly kind: 'authorise' }
  | { readonly kind: 'capture' }
  | { readonly kind: 'cancel' }
  | { readonly kind: 'refund'; readonly refund: OrderRefund };

/**
 * The calls for an authorisation that the provider may refuse for good, ending that piece of work. (A refused refund
 * ends as a failed refund; a refused authorisation has no payment to record it on, so it is tried again.)
 */
export type RefusableCall = 'capture' | 'cancel';

/** An exact amount in minor units (cents: the shop's currency has two decimals, as Money has). */
export function toMinorUnits(amount: Money): MinorUnits {
  return amount.cents;
}

export function fromMinorUnits(amount: MinorUnits): Money {
  return Money.fromCents(amount);
}

/** The refunds that count against what was captured: those not failed. */
export function committedRefunds(refunds: readonly OrderRefund[]): Money {
  return refunds
    .filter((refund) => refund.status !== 'failed')
    .reduce((sum, refund) => sum.plus(refund.amount), Money.fromCents(0));
}

export function succeededRefunds(refunds: readonly OrderRefund[]): Money {
  return refunds
    .filter((refund) => refund.status === 'succeeded')
    .reduce((sum, refund) => sum.plus(refund.amount), Money.fromCents(0));
}

/** The longest reason a refund keeps (the provider keeps 500 characters of metadata). */
export const REFUND_REASON_MAX_LENGTH = 500;

/** A refund's amount as a client writes it: exact, as prices are, and more than nothing. */
export function refundAmount(value: number): Money | Invalid {
  const amount = Money.parse(value);
  return amount instanceof Money && amount.cents === 0 ? new Invalid('must be more than 0') : amount;
}

/** A refund's reason: the merchant's words, not blank. */
export function refundReason(text: string): string | Invalid {
  return text.trim() === '' || text.length > REFUND_REASON_MAX_LENGTH
    ? new Invalid(`must be 1 to ${REFUND_REASON_MAX_LENGTH} characters, not blank`)
    : text;
}
