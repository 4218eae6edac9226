import { optionalText, type Setting, url } from '@platform/runtime';

/** A Stripe secret key (test or live), or empty while payments are not configured. */
function secretKey(variable: string): Setting<string> {
  return {
    variable,
    fallback: '',
    read(name, value) {
      if (value === '') return '';
      if (typeof value !== 'string' || !/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/.test(value))
        throw new Error(`${name} must be a Stripe secret key (sk_test_…, sk_live_…, or a restricted rk_…), not that.`);
      return value;
    },
  };
}

/**
 * The settings a service spreads into its own to pay through Stripe: the secret key, the webhook endpoint's
 * signing secret, and the API's base (empty: Stripe itself; the offline provider's URL in development and tests).
 */
export function paymentSettings() {
  return {
    paymentsApiKey: secretKey('PAYMENTS_API_KEY'),
    /** The `whsec_…` secret of the webhook endpoint registered for this service. */
    paymentsWebhookSecret: optionalText('PAYMENTS_WEBHOOK_SECRET'),
    paymentsUrl: url('PAYMENTS_URL', ''),
  };
}
