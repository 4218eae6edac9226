import { UnavailableError } from '@platform/kernel';
import { PaymentRefusedError } from '@sales/domain';
import Stripe from 'stripe';

/**
 * Conflicts that pass: another request holds the object (`lock_timeout`), or a request with the same idempotency key is
 * still running (409 `idempotency_key_in_use`): the same request later is answered otherwise. (A key reused with other
 * parameters, `idempotency_error`, is refused for good.)
 */
function isPassingConflict(error: Stripe.errors.StripeError): boolean {
  return error.statusCode === 409 || error.code === 'lock_timeout';
}

/**
 * What a failed call to Stripe means for sales. Stripe unreachable, failing (5xx), limiting the rate (429), refusing
 * our key, or in a conflict that passes (isPassingConflict): the provider cannot be used now (UnavailableError: retry
 * with the same idempotency key). Stripe refusing the request (any other 4xx): PaymentRefusedError, with why in sales'
 * words: the same request will be refused again (Stripe keeps a key's answer, its refusal too, for a day). Anything
 * else is not Stripe's answer: passed on.
 */
export function providerFailure(error: unknown): Error {
  if (!(error instanceof Stripe.errors.StripeError)) return error instanceof Error ? error : new Error(String(error));
  if (
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    error instanceof Stripe.errors.StripeAuthenticationError ||
    error instanceof Stripe.errors.StripePermissionError ||
    error.statusCode === 429 ||
    isPassingConflict(error) ||
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
