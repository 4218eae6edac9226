import {
  type Authorisation,
  type AuthorisationRequest,
  type AuthorisationStatus,
  type CancelRequest,
  type Capture,
  type CaptureRequest,
  type PaymentEvent,
  PaymentEventRefusedError,
  type PaymentProvider,
  type Refund,
  type RefundRequest,
} from '@sales/domain';
import Stripe from 'stripe';
import { providerFailure } from './stripe-errors';
import { paymentEventOf, refundStatusOf } from './stripe-events';

export interface StripePaymentProviderOptions {
  /** PAYMENTS_API_KEY: the secret key. */
  readonly apiKey: string;
  /** PAYMENTS_WEBHOOK_SECRET: the `whsec_…` of the endpoint Stripe signs this service's webhooks with. */
  readonly webhookSecret: string;
  /** PAYMENTS_URL: the API's base, e.g. the offline provider's http://127.0.0.1:8084; absent, Stripe itself. */
  readonly url?: string;
  /** Longest one request may take (Stripe's SDK default: 80 s). */
  readonly timeoutMs?: number;
  /** How many times the SDK retries a request that failed on the network or with a 5xx/409, with the same key. */
  readonly maxNetworkRetries?: number;
  /** How old a webhook's signature may be; Stripe's SDK default, 300 s. */
  readonly toleranceSeconds?: number;
}

/** The SDK's `host`, `port` and `protocol` for a base URL other than Stripe's. */
function endpointOf(url: string | undefined): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  if (!url) return {};
  const { hostname, port, protocol } = new URL(url);
  const scheme = protocol === 'http:' ? 'http' : 'https';
  return { host: hostname, port: port || (scheme === 'http' ? 80 : 443), protocol: scheme };
}

/** Stripe's PaymentIntent statuses in sales' words. */
const STATUSES: Readonly<Record<string, AuthorisationStatus>> = {
  requires_payment_method: 'requires_payment_method',
  requires_confirmation: 'requires_payment_method',
  requires_action: 'requires_action',
  processing: 'processing',
  requires_capture: 'authorized',
  succeeded: 'captured',
  canceled: 'canceled',
};

/** A status Stripe adds after this was written is not a decision yet: `processing`. */
const statusOf = (status: string): AuthorisationStatus => STATUSES[status] ?? 'processing';

/**
 * The PaymentProvider port on Stripe's official SDK: an authorisation is a
 * PaymentIntent with `capture_method: manual` (the order's id in its
 * metadata), captured at shipment, canceled before; refunds are Refunds on
 * it; webhooks are checked with `stripe.webhooks.constructEvent`. Every
 * request that changes something carries the caller's idempotency key, so
 * the SDK's own retries, and the caller's, do it once.
 */
export class StripePaymentProvider implements PaymentProvider {
  readonly name = 'stripe';
  private readonly stripe: Stripe;

  constructor(private readonly options: StripePaymentProviderOptions) {
    this.stripe = new Stripe(options.apiKey, {
      ...endpointOf(options.url),
      maxNetworkRetries: options.maxNetworkRetries ?? 2,
      timeout: options.timeoutMs ?? 10_000,
      telemetry: false,
    });
  }

  async createAuthorisation(request: AuthorisationRequest): Promise<Authorisation> {
    const intent = await this.call(() =>
      this.stripe.paymentIntents.create(
        {
          amount: request.amount,
          currency: request.currency.toLowerCase(),
          capture_method: 'manual',
          metadata: { order_id: request.orderId },
        },
        { idempotencyKey: request.idempotencyKey },
      ),
    );
    return { intentId: intent.id, clientSecret: intent.client_secret!, status: statusOf(intent.status) };
  }

  async capture(request: CaptureRequest): Promise<Capture> {
    const intent = await this.call(() =>
      this.stripe.paymentIntents.capture(
        request.intentId,
        request.amount === undefined ? {} : { amount_to_capture: request.amount },
        { idempotencyKey: request.idempotencyKey },
      ),
    );
    return { status: statusOf(intent.status), capturedAmount: intent.amount_received };
  }

  async cancel(request: CancelRequest): Promise<{ readonly status: AuthorisationStatus }> {
    const intent = await this.call(() =>
      this.stripe.paymentIntents.cancel(request.intentId, {}, { idempotencyKey: request.idempotencyKey }),
    );
    return { status: statusOf(intent.status) };
  }

  async refund(request: RefundRequest): Promise<Refund> {
    const refund = await this.call(() =>
      this.stripe.refunds.create(
        {
          payment_intent: request.intentId,
          amount: request.amount,
          metadata: { order_id: request.orderId, ...(request.reason && { reason: request.reason.slice(0, 500) }) },
        },
        { idempotencyKey: request.idempotencyKey },
      ),
    );
    return { refundId: refund.id, status: refundStatusOf(refund.status) };
  }

  verifyWebhook(rawBody: Uint8Array | string, signatureHeader: string | undefined): PaymentEvent {
    if (!signatureHeader) throw new PaymentEventRefusedError('The webhook has no Stripe-Signature header.');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(
        rawBody,
        signatureHeader,
        this.options.webhookSecret,
        this.options.toleranceSeconds ?? 300,
      );
    } catch (error) {
      throw new PaymentEventRefusedError(`The webhook was refused: ${(error as Error).message.split('\n')[0]}`);
    }
    return paymentEventOf(event);
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw providerFailure(error);
    }
  }
}
