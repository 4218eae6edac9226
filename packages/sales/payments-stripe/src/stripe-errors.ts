import { UnavailableError } from '@platform/kernel';
import { PaymentRefusedError } from '@sales/domain';
import Stripe from 'stripe';

/**
 * What a failed call to Stripe means for sales. Stripe unreachable, failing (5xx), limiting the rate, or refusing our
 * key: the provider cannot be used now (UnavailableError: retry with the same idempotency key). Stripe refusing the
 * request: PaymentRefusedError, with why in sales' words. Anything else is not Stripe's answer: passed on.
 */
export function providerFailure(error: unknown): Error {
  if (!(error instanceof Stripe.errors.StripeError)) return error instanceof Error ? error : new Error(String(error));
  if (
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    error instanceof Stripe.errors.StripeAuthenticationError ||
    error instanceof Stripe.errors.StripePermissionError ||
    (error.statusCode ?? 500) >= 500
  )
    return new UnavailableError(
      'PAYMENTS_UNAVAILABLE',
      `The payment provider cannot be used now: ${error.message}`,
      5,
      {
        cause: error,
      },
    );
  if (error.code === 'resource_missing') return new PaymentRefusedError('not_found', error.message);
  if (error.code === 'payment_intent_unexpected_state')
    return new PaymentRefusedError('unexpected_state', error.message);
  // A refund beyond what is left answers with the amount and no code; a capture beyond what is held, amount_too_large.
  const beyondWhatIsLeft =
    error.code === 'charge_already_refunded' ||
    (error.code === 'amount_too_large' && error.param === 'amount_to_capture') ||
    (error.code === undefined && error.param === 'amount');
  if (beyondWhatIsLeft) return new PaymentRefusedError('exceeds_remaining', error.message);
  return new PaymentRefusedError('invalid', error.message);
}
