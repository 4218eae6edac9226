import {
  type Authorisation,
  type AuthorisationRequest,
  type CancelRequest,
  type Capture,
  type CaptureRequest,
  type PaymentEvent,
  PaymentEventRefusedError,
  type PaymentProvider,
  type Refund,
  type RefundRequest,
} from '../src';

/** The signature header FakePaymentProvider takes as genuine; any other is refused as a forged one would be. */
export const FAKE_SIGNATURE = 't=1,v1=genuine';

/**
 * A provider in memory, for the use cases' and the routes' tests: it answers each call as the provider would (an
 * authorisation `pi_<order id>`, a capture of all that is held, a cancel, a pending refund `re_<n>`), answers a key's
 * repeat as its first call, records every call, and throws what `failNext` hands it instead, once. Its webhooks are
 * JSON of the port's events, genuine when signed FAKE_SIGNATURE.
 */
export class FakePaymentProvider implements PaymentProvider {
  readonly name = 'stripe';
  /** Every call made, by kind and idempotency key, in order. */
  readonly calls: { readonly kind: string; readonly idempotencyKey: string }[] = [];
  private readonly answers = new Map<string, unknown>();
  private readonly amounts = new Map<string, number>();
  private failure: Error | undefined;
  private refunds = 0;

  /** The next call throws `error` (UnavailableError: the provider cannot be reached) and changes nothing. */
  failNext(error: Error): void {
    this.failure = error;
  }

  createAuthorisation(request: AuthorisationRequest): Promise<Authorisation> {
    return this.once('authorise', request.idempotencyKey, () => {
      const intentId = `pi_${request.orderId}`;
      this.amounts.set(intentId, request.amount);
      return { intentId, clientSecret: `${intentId}_secret_fake`, status: 'requires_payment_method' };
    });
  }

  capture(request: CaptureRequest): Promise<Capture> {
    return this.once('capture', request.idempotencyKey, () => ({
      status: 'captured',
      capturedAmount: request.amount ?? this.amounts.get(request.intentId) ?? 0,
    }));
  }

  cancel(request: CancelRequest): Promise<{ readonly status: 'canceled' }> {
    return this.once('cancel', request.idempotencyKey, () => ({ status: 'canceled' as const }));
  }

  refund(request: RefundRequest): Promise<Refund> {
    return this.once('refund', request.idempotencyKey, () => ({ refundId: `re_${++this.refunds}`, status: 'pending' }));
  }

  verifyWebhook(rawBody: Uint8Array | string, signatureHeader: string | undefined): PaymentEvent {
    if (signatureHeader !== FAKE_SIGNATURE) throw new PaymentEventRefusedError('The webhook signature is not valid.');
    const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
    // The port's event as JSON: its time as ISO text.
    const event = JSON.parse(text) as PaymentEvent;
    return { ...event, occurredAt: new Date(event.occurredAt) };
  }

  private async once<T>(kind: string, idempotencyKey: string, answer: () => T): Promise<T> {
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure;
    this.calls.push({ kind, idempotencyKey });
    if (!this.answers.has(idempotencyKey)) this.answers.set(idempotencyKey, answer());
    return this.answers.get(idempotencyKey) as T;
  }
}
