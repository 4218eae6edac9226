import { eventually } from '@platform/test-kit';
import { capturingLogger } from '@platform/runtime';
import type { RunningService } from '@platform/http/service';
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { startOfflineProvider, testConfig } from '../src/index';
import { assertStripeObject, schemaOfAnswer, startWebhookReceiver, type WebhookReceiver } from '../testing/index';

const KEY = 'sk_test_offline_provider';

/** A request's parameters, nested as Stripe's bracket notation nests them. */
type Params = { readonly [name: string]: string | number | Params | readonly string[] };

/** What the tests read of an answer or an event: Stripe objects are open, the fields named here are typed. */
interface Json {
  readonly [field: string]: unknown;
  readonly id: string;
  readonly type: string;
  readonly error: Json & { readonly message: string; readonly payment_intent: unknown };
  readonly data: { readonly object: Json & { readonly payment_intent?: string; readonly object: string } };
}

/** Stripe's bracket notation for a nested object, as its SDKs encode a request. */
function form(params: Params, prefix = ''): [string, string][] {
  return Object.entries(params).flatMap(([name, value]) => {
    const key = prefix ? `${prefix}[${name}]` : name;
    if (Array.isArray(value)) return value.map((item, index) => [`${key}[${index}]`, item] as [string, string]);
    return typeof value === 'object' ? form(value as Params, key) : [[key, String(value)] as [string, string]];
  });
}

describe('the offline provider speaks Stripe’s API', function () {
  this.timeout(30_000);
  let provider: RunningService;
  let base: string;
  const logs: Record<string, unknown>[] = [];

  /** One request, its answer checked against Stripe's OpenAPI description whatever the test asserts next. */
  async function call(
    method: string,
    path: string,
    params: Params = {},
    { key = KEY, idempotencyKey }: { key?: string | null; idempotencyKey?: string } = {},
  ) {
    const body = new URLSearchParams(form(params)).toString();
    const response = await fetch(`${base}${path}${method === 'GET' && body ? `?${body}` : ''}`, {
      method,
      headers: {
        ...(key && { authorization: `Bearer ${key}` }),
        ...(idempotencyKey && { 'idempotency-key': idempotencyKey }),
        ...(method === 'POST' && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(method === 'POST' && { body }),
    });
    const json = (await response.json()) as Json;
    assertStripeObject(schemaOfAnswer(response.status, json), json);
    return { status: response.status, headers: response.headers, body: json };
  }

  const newIntent = async (amount = 2450) =>
    (
      await call('POST', '/v1/payment_intents', {
        amount,
        currency: 'eur',
        capture_method: 'manual',
        metadata: { order_id: 'order-1' },
      })
    ).body;

  const authorised = async (amount = 2450) => {
    const intent = await newIntent(amount);
    await call('POST', `/v1/payment_intents/${intent.id}/confirm`, { payment_method: 'pm_card_visa' });
    return intent;
  };

  before(async () => {
    provider = await startOfflineProvider(testConfig({ retryFirstMs: 20, retryMaxMs: 100 }), {
      logger: capturingLogger('payments', logs),
    });
    base = `http://127.0.0.1:${provider.port}`;
  });

  after(() => provider.close({ immediate: true }));

  describe('its secret key', () => {
    it('refuses a request without one with Stripe’s 401', async () => {
      const { status, headers, body } = await call('POST', '/v1/payment_intents', {}, { key: null });
      expect(status).to.equal(401);
      expect(headers.get('www-authenticate')).to.equal('Bearer realm="Stripe"');
      expect(body.error.type).to.equal('invalid_request_error');
      expect(body.error.message).to.match(/^You did not provide an API key/);
    });

    it('refuses another key, masked in the message', async () => {
      const { status, body } = await call('GET', '/v1/payment_intents/pi_x', {}, { key: 'sk_test_someone_else_1234' });
      expect(status).to.equal(401);
      expect(body.error.message).to.equal('Invalid API Key provided: sk_test_****1234');
    });
  });

  describe('PaymentIntents', () => {
    it('creates one with Stripe’s ids, waiting for a payment method, its client secret for the buyer', async () => {
      const intent = await newIntent();
      expect(intent).to.include({ object: 'payment_intent', amount: 2450, currency: 'eur', capture_method: 'manual' });
      expect(intent.status).to.equal('requires_payment_method');
      expect(intent.id).to.match(/^pi_[A-Za-z0-9]{24}$/);
      expect(intent.client_secret).to.match(new RegExp(`^${intent.id}_secret_`));
      expect(intent.metadata).to.deep.equal({ order_id: 'order-1' });
      const retrieved = await call('GET', `/v1/payment_intents/${intent.id}`);
      expect(retrieved.body).to.deep.equal(intent);
    });

    it('authorises with pm_card_visa, holding the whole amount for a manual capture', async () => {
      const intent = await newIntent();
      const { body } = await call('POST', `/v1/payment_intents/${intent.id}/confirm`, {
        payment_method: 'pm_card_visa',
      });
      expect(body).to.include({ status: 'requires_capture', amount_capturable: 2450, amount_received: 0 });
      expect(body.latest_charge).to.match(/^ch_/);
      expect(body.payment_method).to.match(/^pm_/);
    });

    it('declines pm_card_chargeDeclined with a 402 card_error, and takes another card after', async () => {
      const intent = await newIntent();
      const declined = await call('POST', `/v1/payment_intents/${intent.id}/confirm`, {
        payment_method: 'pm_card_chargeDeclined',
      });
      expect(declined.status).to.equal(402);
      expect(declined.body.error).to.include({
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
        message: 'Your card was declined.',
      });
      expect(declined.body.error.payment_intent).to.include({ id: intent.id, status: 'requires_payment_method' });
      const after = (await call('GET', `/v1/payment_intents/${intent.id}`)).body;
      expect(after.last_payment_error).to.include({ code: 'card_declined', decline_code: 'generic_decline' });
      expect(after.payment_method).to.equal(null);
      const retried = await call('POST', `/v1/payment_intents/${intent.id}/confirm`, {
        payment_method: 'pm_card_visa',
      });
      expect(retried.body).to.include({ status: 'requires_capture', last_payment_error: null });
    });

    it('captures what is held, or part of it, and nothing more', async () => {
      const intent = await authorised();
      const tooMuch = await call('POST', `/v1/payment_intents/${intent.id}/capture`, { amount_to_capture: 2451 });
      expect(tooMuch.status).to.equal(400);
      expect(tooMuch.body.error).to.include({ code: 'amount_too_large', param: 'amount_to_capture' });
      const { body } = await call('POST', `/v1/payment_intents/${intent.id}/capture`, { amount_to_capture: 2000 });
      expect(body).to.include({ status: 'succeeded', amount_received: 2000, amount_capturable: 0 });
      const again = await call('POST', `/v1/payment_intents/${intent.id}/capture`);
      expect(again.status).to.equal(400);
      expect(again.body.error.code).to.equal('payment_intent_unexpected_state');
    });

    it('cancels an authorisation, which can then be neither captured nor canceled', async () => {
      const intent = await authorised();
      const { body } = await call('POST', `/v1/payment_intents/${intent.id}/cancel`, {
        cancellation_reason: 'requested_by_customer',
      });
      expect(body).to.include({
        status: 'canceled',
        amount_capturable: 0,
        cancellation_reason: 'requested_by_customer',
      });
      expect(body.canceled_at).to.be.a('number');
      for (const action of ['capture', 'cancel']) {
        const refused = await call('POST', `/v1/payment_intents/${intent.id}/${action}`);
        expect(refused.status, action).to.equal(400);
        expect(refused.body.error.message).to.match(/has a status of canceled/);
      }
    });

    it('answers an unknown one with resource_missing', async () => {
      const { status, body } = await call('GET', '/v1/payment_intents/pi_unknown');
      expect(status).to.equal(404);
      expect(body.error).to.include({ code: 'resource_missing', message: "No such payment_intent: 'pi_unknown'" });
    });
  });

  describe('refunds', () => {
    it('are refused before capture', async () => {
      const intent = await authorised();
      const { status, body } = await call('POST', '/v1/refunds', { payment_intent: intent.id, amount: 100 });
      expect(status).to.equal(400);
      expect(body.error.code).to.equal('payment_intent_unexpected_state');
    });

    it('never add up to more than was captured', async () => {
      const intent = await authorised();
      await call('POST', `/v1/payment_intents/${intent.id}/capture`);
      const first = await call('POST', '/v1/refunds', { payment_intent: intent.id, amount: 2000, reason: 'duplicate' });
      expect(first.body).to.include({ object: 'refund', amount: 2000, status: 'pending', payment_intent: intent.id });
      expect(first.body.id).to.match(/^re_/);
      const beyond = await call('POST', '/v1/refunds', { payment_intent: intent.id, amount: 451 });
      expect(beyond.status).to.equal(400);
      expect(beyond.body.error).to.include({ param: 'amount' });
      expect(beyond.body.error.message).to.equal(
        'Refund amount (€4.51) is greater than unrefunded amount on charge (€4.50)',
      );
      const rest = await call('POST', '/v1/refunds', { payment_intent: intent.id });
      expect(rest.body.amount).to.equal(450);
      const more = await call('POST', '/v1/refunds', { payment_intent: intent.id, amount: 1 });
      expect(more.body.error.code).to.equal('charge_already_refunded');
      const settled = await call('GET', `/v1/refunds/${first.body.id}`);
      expect(settled.body.status).to.equal('succeeded');
    });

    it('fail with pm_card_refundFail, giving back what they held', async () => {
      const intent = await newIntent();
      await call('POST', `/v1/payment_intents/${intent.id}/confirm`, { payment_method: 'pm_card_refundFail' });
      await call('POST', `/v1/payment_intents/${intent.id}/capture`);
      const refund = await call('POST', '/v1/refunds', { payment_intent: intent.id, amount: 2450 });
      const settled = await call('GET', `/v1/refunds/${refund.body.id}`);
      expect(settled.body).to.include({ status: 'failed', failure_reason: 'declined' });
      const again = await call('POST', '/v1/refunds', { payment_intent: intent.id, amount: 2450 });
      expect(again.body.amount).to.equal(2450);
    });
  });

  describe('Idempotency-Key', () => {
    it('answers the same request again, marked as a replay, without doing it twice', async () => {
      const params = { amount: 1000, currency: 'eur', capture_method: 'manual' };
      const first = await call('POST', '/v1/payment_intents', params, { idempotencyKey: 'create-once' });
      const again = await call('POST', '/v1/payment_intents', params, { idempotencyKey: 'create-once' });
      expect(again.body).to.deep.equal(first.body);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
    });

    it('replays a refusal too', async () => {
      const first = await call('POST', '/v1/refunds', { payment_intent: 'pi_gone' }, { idempotencyKey: 'refund-x' });
      const again = await call('POST', '/v1/refunds', { payment_intent: 'pi_gone' }, { idempotencyKey: 'refund-x' });
      expect([first.status, again.status]).to.deep.equal([404, 404]);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
    });

    it('refuses the same key with other parameters with idempotency_error', async () => {
      await call('POST', '/v1/payment_intents', { amount: 1000, currency: 'eur' }, { idempotencyKey: 'k-params' });
      const { status, body } = await call(
        'POST',
        '/v1/payment_intents',
        { amount: 1001, currency: 'eur' },
        { idempotencyKey: 'k-params' },
      );
      expect(status).to.equal(400);
      expect(body.error.type).to.equal('idempotency_error');
    });

    it('keeps nothing for a request refused before it ran', async () => {
      const bad = await call('POST', '/v1/payment_intents', { amount: 'ten' }, { idempotencyKey: 'k-bad' });
      expect(bad.body.error).to.include({ code: 'parameter_invalid_integer', param: 'amount' });
      const good = await call(
        'POST',
        '/v1/payment_intents',
        { amount: 1000, currency: 'eur' },
        { idempotencyKey: 'k-bad' },
      );
      expect(good.status).to.equal(200);
    });
  });

  describe('parameters and paths', () => {
    it('refuses an unknown parameter, a missing one and a small amount as Stripe does', async () => {
      const unknown = await call('POST', '/v1/payment_intents', { amount: 1000, currency: 'eur', colour: 'red' });
      expect(unknown.body.error).to.include({ code: 'parameter_unknown', param: 'colour' });
      const missing = await call('POST', '/v1/payment_intents', { amount: 1000 });
      expect(missing.body.error).to.include({ code: 'parameter_missing', param: 'currency' });
      const small = await call('POST', '/v1/payment_intents', { amount: 49, currency: 'eur' });
      expect(small.body.error).to.include({ code: 'amount_too_small', param: 'amount' });
    });

    it('answers an unknown path with Stripe’s 404', async () => {
      const { status, body } = await call('GET', '/v1/charges');
      expect(status).to.equal(404);
      expect(body.error.message).to.match(/^Unrecognized request URL \(GET: \/v1\/charges\)/);
    });
  });

  describe('webhooks', () => {
    let receiver: WebhookReceiver;
    let secret: string;
    let failing = 0;

    before(async () => {
      receiver = await startWebhookReceiver(() => failing-- > 0);
      const { body } = await call('POST', '/v1/webhook_endpoints', {
        url: receiver.url,
        enabled_events: ['payment_intent.amount_capturable_updated', 'payment_intent.succeeded', 'charge.refunded'],
      });
      expect(body.id).to.match(/^we_/);
      expect(body).to.include({ url: receiver.url, status: 'enabled' });
      secret = body.secret as string;
    });

    after(() => receiver.close());

    /** The events received for `intentId`, each checked: its signature, and its shape against Stripe's. */
    function eventsFor(intentId: string) {
      return receiver.received
        .map(({ headers, body }) => {
          const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(headers['stripe-signature']))!;
          expect(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')).to.equal(v1);
          const event = JSON.parse(body) as Json;
          assertStripeObject('event', event);
          return event;
        })
        .filter((event) => (event.data.object.payment_intent ?? event.data.object.id) === intentId);
    }

    it('answers the endpoint’s whsec_ secret when it is made, and refuses an event it never sends', async () => {
      expect(secret).to.match(/^whsec_/);
      const { status, body } = await call('POST', '/v1/webhook_endpoints', {
        url: receiver.url,
        enabled_events: ['invoice.paid'],
      });
      expect(status).to.equal(400);
      expect(body.error.param).to.equal('enabled_events');
    });

    it('sends the events it subscribed to, signed, each object as Stripe describes it', async () => {
      const intent = await authorised(3000);
      await call('POST', `/v1/payment_intents/${intent.id}/capture`);
      await call('POST', '/v1/refunds', { payment_intent: intent.id, amount: 1000 });
      const events = await eventually(
        'three events',
        10_000,
        () => eventsFor(intent.id).length === 3 && eventsFor(intent.id),
      );
      expect(events.map((event) => event.type).sort()).to.deep.equal([
        'charge.refunded',
        'payment_intent.amount_capturable_updated',
        'payment_intent.succeeded',
      ]);
      for (const event of events) {
        expect(event.id).to.match(/^evt_/);
        if (event.data.object.object === 'payment_intent') assertStripeObject('payment_intent', event.data.object);
      }
      const refunded = events.find((event) => event.type === 'charge.refunded')!;
      expect(refunded.data.object).to.include({ object: 'charge', amount_refunded: 1000, payment_intent: intent.id });
      expect(refunded.data.object.metadata).to.deep.equal({ order_id: 'order-1' });
    });

    it('retries an event until the endpoint answers 2xx, the same event each time', async () => {
      failing = 2;
      const before = receiver.received.length;
      const intent = await authorised();
      await eventually('the third attempt', 10_000, () => receiver.received.length - before === 3);
      const ids = receiver.received.slice(before).map(({ body }) => (JSON.parse(body) as Json).id);
      expect(new Set(ids).size).to.equal(1);
      expect(eventsFor(intent.id)).to.have.length(3);
      expect(logs.filter((log) => log.message === 'webhook not delivered; retrying')).to.have.length.at.least(2);
    });
  });
});
