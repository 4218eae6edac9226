import { UnavailableError } from '@platform/kernel';
import type { PaymentProvider } from '@sales/domain';

const off = () =>
  new UnavailableError(
    'PAYMENTS_UNAVAILABLE',
    'Payments are off: PAYMENTS_API_KEY and PAYMENTS_WEBHOOK_SECRET are not set.',
    60,
  );

/**
 * The provider of a sales service run without payments (neither PAYMENTS_API_KEY nor PAYMENTS_WEBHOOK_SECRET set):
 * every call, and every webhook, is a 503. No worker runs, so nothing calls it but the webhook route.
 */
export const PAYMENTS_OFF: PaymentProvider = {
  name: 'none',
  createAuthorisation: () => Promise.reject(off()),
  capture: () => Promise.reject(off()),
  cancel: () => Promise.reject(off()),
  refund: () => Promise.reject(off()),
  verifyWebhook: () => {
    throw off();
  },
};
