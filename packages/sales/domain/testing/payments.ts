import type { Authorisation, Order } from '../src';

/** The authorisation a test provider makes for every order. */
export const TEST_AUTHORISATION: Authorisation = {
  intentId: 'pi_test',
  clientSecret: 'pi_test_secret_test',
  status: 'requires_payment_method',
};

/** The order with the provider's authorisation of its total, waiting for the buyer to confirm it. */
export function withAuthorisation(order: Order, at: Date): Order {
  return order.authorisationCreated('stripe', TEST_AUTHORISATION, 'EUR', at).order;
}

/** A reserved order paid as the provider pays it: its total authorised, then the provider's event. */
export function paidThroughProvider(reserved: Order, at: Date): Order {
  return withAuthorisation(reserved, at).paymentAuthorized(TEST_AUTHORISATION.intentId, reserved.total, 'EUR', at, at)
    .order;
}
