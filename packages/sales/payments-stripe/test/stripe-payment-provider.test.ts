import { OFFLINE_PROVIDER_MAIN, startWebhookReceiver, type WebhookReceiver } from '@commerce/offline-payments/testing';
import { UnavailableError } from '@platform/kernel';
import { eventually, type ServiceProcess, startServiceProcess } from '@platform/test-kit';
import { type PaymentEvent, PaymentEventRefusedError, PaymentRefusedError } from '@sales/domain';
import { expect, use } from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { StripePaymentProvider } from '../src/index';

use(chaiAsPromised);

const KEY = 'sk_test_adapter_contract';

/**
 * The adapter against the offline provider as a real process, through Stripe's own SDK: what sales will rely on when
 * PAYMENTS_URL points at it, and (with a real test key and no PAYMENTS_URL) at Stripe.
 */
describe('StripePaymentProvider against the offline provider', function () {
  this.timeout(60_000);
  let process: ServiceProcess;
  let receiver: WebhookReceiver;
  let url: string;
  let secret: string;
  let provider: StripePaymentProvider;
  /** The buyer's side: confirming with a test card is the buyer's step, not the port's. */
  let buyer: Stripe;

  const key = () => randomUUID();
  const authorise = (orderId: string, amount = 2450) =>
    provider.createAuthorisation({ orderId, amount, currency: 'EUR', idempotencyKey: key() });

  /** The decoded events the receiver got about `intentId`, each verified by the adapter. */
  const eventsAbout = (intentId: string) =>
    receiver.received
      .map(({ headers, body }) => provider.verifyWebhook(body, String(headers['stripe-signature'])))
      .filter((event): event is Exclude<PaymentEvent, { kind: 'other' }> => event.kind !== 'other')
      .filter((event) => event.intentId === intentId);

  const waitForEvent = (intentId: string, kind: PaymentEvent['kind']) =>
    eventually(`a ${kind} event`, 15_000, () => eventsAbout(intentId).find((event) => event.kind === kind));

  before(async () => {
    process = startServiceProcess(OFFLINE_PROVIDER_MAIN, {
      PAYMENTS_API_KEY: KEY,
      PAYMENTS_RETRY_FIRST_MS: '50',
      SHUTDOWN_DELAY_MS: '0',
    });
    url = `http://127.0.0.1:${await process.port()}`;
    receiver = await startWebhookReceiver();
    buyer = new Stripe(KEY, { host: '127.0.0.1', port: new URL(url).port, protocol: 'http', telemetry: false });
    const endpoint = await buyer.webhookEndpoints.create({ url: receiver.url, enabled_events: ['*'] });
    secret = endpoint.secret!;
    provider = new StripePaymentProvider({ apiKey: KEY, webhookSecret: secret, url, maxNetworkRetries: 0 });
  });

  after(async () => {
    await receiver?.close();
    await process?.stop();
  });

  it('authorises an order’s total: an intent waiting for the buyer, its client secret, the same for the same key', async () => {
    const idempotencyKey = key();
    const request = { orderId: 'order-a', amount: 2450, currency: 'EUR', idempotencyKey };
    const authorisation = await provider.createAuthorisation(request);
    expect(authorisation.status).to.equal('requires_payment_method');
    expect(authorisation.intentId).to.match(/^pi_/);
    expect(authorisation.clientSecret).to.match(new RegExp(`^${authorisation.intentId}_secret_`));
    expect(await provider.createAuthorisation(request)).to.deep.equal(authorisation);
    const reused = provider.createAuthorisation({ ...request, amount: 2451 });
    await expect(reused).to.be.rejectedWith(PaymentRefusedError).and.eventually.have.property('reason', 'invalid');
  });

  it('hears of the buyer’s authorisation, captures it and is told it was taken', async () => {
    const { intentId } = await authorise('order-b');
    await buyer.paymentIntents.confirm(intentId, { payment_method: 'pm_card_visa' });
    const authorized = await waitForEvent(intentId, 'authorized');
    expect(authorized).to.include({ orderId: 'order-b', amount: 2450, currency: 'EUR' });
    expect(authorized.eventId).to.match(/^evt_/);
    expect(authorized.occurredAt).to.be.instanceOf(Date);
    const capture = await provider.capture({ intentId, idempotencyKey: key() });
    expect(capture).to.deep.equal({ status: 'captured', capturedAmount: 2450 });
    expect(await waitForEvent(intentId, 'captured')).to.include({ orderId: 'order-b', amount: 2450 });
  });

  it('hears of a declined card, with the reason, and the buyer may then pay with another', async () => {
    const { intentId } = await authorise('order-c');
    const declined = buyer.paymentIntents.confirm(intentId, { payment_method: 'pm_card_chargeDeclined' });
    await expect(declined).to.be.rejectedWith(Stripe.errors.StripeCardError);
    expect(await waitForEvent(intentId, 'authorisation_failed')).to.include({
      orderId: 'order-c',
      reason: 'Your card was declined.',
      code: 'generic_decline',
    });
    const capture = provider.capture({ intentId, idempotencyKey: key() });
    await expect(capture)
      .to.be.rejectedWith(PaymentRefusedError)
      .and.eventually.include({ reason: 'unexpected_state' });
    await buyer.paymentIntents.confirm(intentId, { payment_method: 'pm_card_visa' });
    expect(await waitForEvent(intentId, 'authorized')).to.include({ amount: 2450 });
  });

  it('cancels an authorisation before capture, which then cannot be captured', async () => {
    const { intentId } = await authorise('order-d');
    await buyer.paymentIntents.confirm(intentId, { payment_method: 'pm_card_visa' });
    expect(await provider.cancel({ intentId, idempotencyKey: key() })).to.deep.equal({ status: 'canceled' });
    expect(await waitForEvent(intentId, 'canceled')).to.include({ orderId: 'order-d' });
    await expect(provider.capture({ intentId, idempotencyKey: key() }))
      .to.be.rejectedWith(PaymentRefusedError)
      .and.eventually.include({ reason: 'unexpected_state' });
  });

  it('refunds part of what was captured, settled by webhook, and refuses refunds beyond it', async () => {
    const { intentId } = await authorise('order-e');
    const early = provider.refund({ orderId: 'order-e', intentId, amount: 100, idempotencyKey: key() });
    await expect(early).to.be.rejectedWith(PaymentRefusedError).and.eventually.include({ reason: 'unexpected_state' });
    await buyer.paymentIntents.confirm(intentId, { payment_method: 'pm_card_visa' });
    await provider.capture({ intentId, idempotencyKey: key() });
    const refundKey = key();
    const request = {
      orderId: 'order-e',
      intentId,
      amount: 2000,
      reason: 'two lamps returned',
      idempotencyKey: refundKey,
    };
    const refund = await provider.refund(request);
    expect(refund.status).to.equal('pending');
    expect(refund.refundId).to.match(/^re_/);
    expect(await provider.refund(request)).to.deep.equal(refund);
    const beyond = provider.refund({ orderId: 'order-e', intentId, amount: 451, idempotencyKey: key() });
    await expect(beyond)
      .to.be.rejectedWith(PaymentRefusedError)
      .and.eventually.include({ reason: 'exceeds_remaining' });
    const settled = await waitForEvent(intentId, 'refund_updated');
    expect(settled).to.include({ refundId: refund.refundId, status: 'succeeded', amount: 2000, orderId: 'order-e' });
    expect(await waitForEvent(intentId, 'refunded')).to.include({ refundedAmount: 2000, currency: 'EUR' });
  });

  it('refuses a not-found authorisation', async () => {
    await expect(provider.capture({ intentId: 'pi_missing', idempotencyKey: key() }))
      .to.be.rejectedWith(PaymentRefusedError)
      .and.eventually.include({ reason: 'not_found' });
  });

  describe('webhook signatures', () => {
    let body: string;
    let header: string;
    before(async () => {
      const { intentId } = await authorise('order-f');
      await buyer.paymentIntents.confirm(intentId, { payment_method: 'pm_card_visa' });
      await waitForEvent(intentId, 'authorized');
      const delivered = receiver.received.find((each) => each.body.includes(intentId))!;
      body = delivered.body;
      header = String(delivered.headers['stripe-signature']);
    });

    const refused = (rawBody: string, signature: string | undefined) => () =>
      provider.verifyWebhook(rawBody, signature);

    it('takes the body exactly as it was signed, as text or bytes', () => {
      expect(provider.verifyWebhook(body, header).kind).to.equal('authorized');
      expect(provider.verifyWebhook(new TextEncoder().encode(body), header).kind).to.equal('authorized');
    });

    it('refuses a missing signature and one made with another secret', () => {
      expect(refused(body, undefined)).to.throw(PaymentEventRefusedError, /no Stripe-Signature/);
      const forged = buyer.webhooks.generateTestHeaderString({ payload: body, secret: 'whsec_someone_else' });
      expect(refused(body, forged)).to.throw(PaymentEventRefusedError);
    });

    it('refuses a body changed after signing', () => {
      const changed = body.replace('"amount_capturable": 2450', '"amount_capturable": 1');
      expect(changed).not.to.equal(body);
      expect(refused(changed, header)).to.throw(PaymentEventRefusedError);
    });

    it('refuses a signature older than the 300 s tolerance, and takes one just inside it', () => {
      const at = (secondsAgo: number) =>
        buyer.webhooks.generateTestHeaderString({
          payload: body,
          secret,
          timestamp: Math.floor(Date.now() / 1000) - secondsAgo,
        });
      expect(refused(body, at(301 + 5))).to.throw(PaymentEventRefusedError, /tolerance/i);
      expect(provider.verifyWebhook(body, at(200)).kind).to.equal('authorized');
    });
  });

  it('answers UnavailableError when the provider is down', async () => {
    const down = new StripePaymentProvider({
      apiKey: KEY,
      webhookSecret: secret,
      url: 'http://127.0.0.1:9',
      maxNetworkRetries: 0,
    });
    await expect(down.createAuthorisation({ orderId: 'o', amount: 2450, currency: 'EUR', idempotencyKey: key() }))
      .to.be.rejectedWith(UnavailableError)
      .and.eventually.include({ code: 'PAYMENTS_UNAVAILABLE' });
  });
});
