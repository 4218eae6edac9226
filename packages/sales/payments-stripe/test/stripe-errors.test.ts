import { UnavailableError } from '@platform/kernel';
import { PaymentRefusedError } from '@sales/domain';
import { expect } from 'chai';
import Stripe from 'stripe';
import { providerFailure } from '../src/stripe-errors';

const { errors } = Stripe;

/** Which of Stripe's failures may pass (retried with the same key) and which are refused for good (not made again). */
describe("Stripe's failures in sales' words", () => {
  it('may pass: no connection, a 5xx, a rate limit, our key refused, a lock or a request with the same key running', () => {
    for (const [what, error] of [
      ['no connection', new errors.StripeConnectionError({ message: 'ECONNREFUSED' })],
      ['a 5xx', new errors.StripeAPIError({ message: 'An error occurred', statusCode: 500 })],
      ['a rate limit', new errors.StripeRateLimitError({ message: 'Too many requests', statusCode: 429 })],
      ['our key', new errors.StripeAuthenticationError({ message: 'Invalid API Key', statusCode: 401 })],
      ['a lock', new errors.StripeInvalidRequestError({ message: 'locked', code: 'lock_timeout', statusCode: 429 })],
      [
        'the same key running',
        new errors.StripeInvalidRequestError({ message: 'in use', code: 'idempotency_key_in_use', statusCode: 409 }),
      ],
    ] as const)
      expect(providerFailure(error), what).to.be.instanceOf(UnavailableError);
  });

  it('refused for good: every other 4xx, a key reused with other parameters included, with why', () => {
    const refused = (error: Stripe.errors.StripeError) => {
      const failure = providerFailure(error);
      expect(failure, error.message).to.be.instanceOf(PaymentRefusedError);
      return (failure as PaymentRefusedError).reason;
    };
    expect(
      refused(
        new errors.StripeInvalidRequestError({
          message: 'This PaymentIntent could not be captured because it has a status of canceled.',
          code: 'payment_intent_unexpected_state',
          statusCode: 400,
        }),
      ),
    ).to.equal('unexpected_state');
    expect(
      refused(new errors.StripeInvalidRequestError({ message: 'No such', code: 'resource_missing', statusCode: 404 })),
    ).to.equal('not_found');
    expect(
      refused(new errors.StripeIdempotencyError({ message: 'Keys for idempotent requests…', statusCode: 400 })),
    ).to.equal('invalid');
  });
});
