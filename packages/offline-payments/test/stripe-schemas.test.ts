import { expect } from 'chai';
import { assertStripeObject } from '../testing/index';

// The check every answer goes through must be able to fail, or the API tests prove nothing.
describe('the Stripe OpenAPI subset the answers are checked against', () => {
  const intent = {
    id: 'pi_1',
    object: 'payment_intent',
    created: 1,
    livemode: false,
    status: 'requires_capture',
    last_payment_error: null,
    latest_charge: 'ch_1',
  };

  it('takes a PaymentIntent as Stripe describes it, nullable expandable fields included', () => {
    expect(() => assertStripeObject('payment_intent', intent)).not.to.throw();
  });

  it('refuses a status Stripe does not have, a missing required field and a wrong type', () => {
    expect(() => assertStripeObject('payment_intent', { ...intent, status: 'authorized' })).to.throw(/status/);
    expect(() => assertStripeObject('payment_intent', { ...intent, created: undefined })).to.throw(/created/);
    expect(() =>
      assertStripeObject('refund', { id: 're_1', object: 'refund', amount: '10', created: 1, currency: 'eur' }),
    ).to.throw(/amount/);
  });

  it('refuses an error without Stripe’s type, and a currency in upper case', () => {
    expect(() => assertStripeObject('error', { error: { type: 'oops', message: 'm' } })).to.throw(/type/);
    expect(() =>
      assertStripeObject('refund', { id: 're_1', object: 'refund', amount: 10, created: 1, currency: 'EUR' }),
    ).to.throw(/currency/);
  });
});
