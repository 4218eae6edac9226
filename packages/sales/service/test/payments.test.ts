import { OFFLINE_PROVIDER_MAIN } from '@commerce/offline-payments/testing';
import { newEvent } from '@commerce/contracts';
import { ServiceTokens } from '@platform/http/service';
import { eventually, type ServiceProcess, startServiceProcess } from '@platform/test-kit';
import { HandleStockEvent, type StockEvent } from '@sales/application';
import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Tokens } from '../src';
import { type SalesUnderTest, type StockUnderTest, startSales, startStock } from './support';

const KEY = 'sk_test_sales_payments';
const RESERVATION_TTL_MS = 15 * 60_000;

type Payment = {
  status: string;
  intentId: string;
  clientSecret?: string;
  amount: number;
  capturedAmount: number;
  refundedAmount: number;
  lastError?: string;
  refusedCall?: string;
};
type OrderJson = {
  id: string;
  status: string;
  total: number;
  reservationId?: string;
  paymentToRelease?: true;
  payment?: Payment;
  refunds: { id: string; amount: number; status: string }[];
};

/** A port nothing listens on now, for sales to listen on: its webhook endpoint is registered before it starts. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Sales taking payments from the offline provider as a real process, through the Stripe adapter, with the provider
 * misbehaving on purpose (every event twice, out of order, late): the order's money ends where it should, once. On
 * SQLite, whose transactions take turns, and on PostgreSQL, where concurrent ones meet at the order's row lock.
 */
for (const backend of ['sqlite', 'postgresql'] as const) {
  describe(`The sales service on ${backend} with the offline payment provider misbehaving`, function () {
    this.timeout(120_000);
    let provider: ServiceProcess;
    let providerUrl: string;
    let secret: string;
    let stock: StockUnderTest;
    let sales: SalesUnderTest;
    let lamp: number;

    /** Stripe's API as the buyer's client calls it: form-encoded, with the key. */
    const stripe = async (path: string, form: Record<string, string>) => {
      const response = await fetch(`${providerUrl}/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const read = async (id: string) => (await sales.json<OrderJson>('GET', `/api/orders/${id}`)).body;
    const fromStock = (event: StockEvent) => sales.service.container.resolve(HandleStockEvent).execute(event);
    /** An order of `quantity` lamps (10.00 each), stock's hold confirmed, its authorisation made by the worker. */
    const authorising = async (quantity = 1): Promise<OrderJson> => {
      const { body } = await sales.json<OrderJson>('POST', '/api/orders', {
        lines: [{ productId: lamp, quantity }],
      });
      const expiresAt = new Date(Date.now() + RESERVATION_TTL_MS).toISOString();
      await fromStock(
        newEvent('stock.reservation.confirmed', { orderId: body.id, reservationId: randomUUID(), expiresAt }),
      );
      return eventually('the authorisation', 20_000, async () => {
        const order = await read(body.id);
        return order.payment && order;
      });
    };
    const confirm = (order: OrderJson, method = 'pm_card_visa') =>
      stripe(`/payment_intents/${order.payment!.intentId}/confirm`, { payment_method: method });
    const until = (what: string, id: string, done: (order: OrderJson) => boolean) =>
      eventually(what, 30_000, async () => {
        const order = await read(id);
        return done(order) && order;
      });
    const ship = (orderId: string, quantity: number) =>
      fromStock(
        newEvent('stock.shipment.created', {
          shipmentId: randomUUID(),
          orderId,
          lines: [{ productId: lamp, locationId: 1, quantity }],
          carrier: null,
          trackingNumber: null,
        }),
      );
    const paidEvents = async () => {
      const outbox = sales.service.container.resolve(ServiceTokens.OutboxStore);
      const rows = await outbox.claim(100_000, 1, Date.now());
      return rows
        .filter((row) => row.type === 'sales.order.paid')
        .map((row) => JSON.parse(row.payload) as { data: { orderId: string } });
    };

    /** Stripe's event that an order's 10.00 is held, as the provider would send it for `order`'s intent. */
    const capturableEvent = (order: OrderJson) =>
      JSON.stringify({
        id: `evt_${randomUUID().replaceAll('-', '')}`,
        object: 'event',
        type: 'payment_intent.amount_capturable_updated',
        created: Math.floor(Date.now() / 1000),
        data: {
          object: {
            id: order.payment!.intentId,
            object: 'payment_intent',
            amount: 1000,
            amount_capturable: 1000,
            amount_received: 0,
            currency: 'eur',
            status: 'requires_capture',
            metadata: { order_id: order.id },
          },
        },
      });
    /** A Stripe-Signature header over `payload` at `at` (seconds), with the endpoint's secret unless told. */
    const signed = (payload: string, at: number, key = secret) =>
      `t=${at},v1=${createHmac('sha256', key).update(`${at}.${payload}`).digest('hex')}`;

    before(async function () {
      provider = startServiceProcess(OFFLINE_PROVIDER_MAIN, {
        PAYMENTS_API_KEY: KEY,
        PAYMENTS_CHAOS: 'duplicate,reorder,delay',
        PAYMENTS_CHAOS_DELAY_MS: '300',
        PAYMENTS_RETRY_FIRST_MS: '100',
        SHUTDOWN_DELAY_MS: '0',
      });
      providerUrl = `http://127.0.0.1:${await provider.port()}`;
      const port = await freePort();
      const endpoint = await stripe('/webhook_endpoints', {
        url: `http://127.0.0.1:${port}/api/payment-events`,
        'enabled_events[0]': '*',
      });
      secret = String(endpoint.body.secret);
      stock = await startStock();
      lamp = await stock.product('Lamp', 10, 10_000);
      sales = await startSales(backend, this, {
        port,
        stockUrl: stock.url,
        paymentsApiKey: KEY,
        paymentsWebhookSecret: secret,
        paymentsUrl: providerUrl,
        paymentsPollMs: 50,
        logLevel: 'error',
      });
    });
    after(async () => {
      await sales?.stop();
      await stock?.stop();
      await provider?.stop();
    });

    it('pays 100 orders confirmed at once exactly once each, every event delivered twice, out of order and late', async () => {
      const orders = await Promise.all(Array.from({ length: 100 }, () => authorising()));
      const answers = await Promise.all(orders.map((order) => confirm(order)));
      expect(answers.map((a) => a.body.status)).to.deep.equal(orders.map(() => 'requires_capture'));
      await eventually('every order paid', 60_000, async () => {
        const now = await Promise.all(orders.map((order) => read(order.id)));
        return now.every((order) => order.status === 'paid');
      });
      // Every duplicate and late event delivered (the provider has none waiting): none settled an order twice or moved
      // one back.
      const deliveries = await eventually('every delivery taken', 60_000, async () => {
        const text = await (await fetch(`${providerUrl}/metrics`)).text();
        const count = (state: string) =>
          Number(new RegExp(`^payments_webhook_deliveries\\{state="${state}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
        return count('waiting') === 0 && count('delivered');
      });
      // Each order's authorisation and its duplicate, at least (the provider sent the other tests' events too).
      expect(deliveries).to.be.at.least(200);
      const after = await Promise.all(orders.map((order) => read(order.id)));
      expect(after.map((o) => [o.status, o.payment?.status])).to.deep.equal(orders.map(() => ['paid', 'authorized']));
      const paid = (await paidEvents()).map((event) => event.data.orderId).sort();
      expect(paid).to.deep.equal(orders.map((order) => order.id).sort());
      const metrics = await (await sales.request('/metrics')).text();
      // Copies were taken as duplicates, answered 2xx and changing nothing.
      expect(metrics).to.match(/sales_payment_events_total\{type="authorized",outcome="duplicate"\} [1-9]/);
      expect(metrics).to.match(/sales_payments\{status="authorized"\} 100/);
    });

    it('refuses a webhook with a bad signature, one signed too long ago, and one whose body changed: 400, nothing changes', async () => {
      const order = await authorising();
      const before = await read(order.id);
      const body = capturableEvent(order);
      const now = Math.floor(Date.now() / 1000);
      for (const [what, payload, signature] of [
        ['a bad signature', body, signed(body, now, 'whsec_forged')],
        ['an old signature', body, signed(body, now - 600)],
        ['a changed body', body.replace('"amount":1000', '"amount":1'), signed(body, now)],
        ['no signature', body, ''],
      ] as const) {
        const response = await sales.request('/api/payment-events', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(signature && { 'stripe-signature': signature }) },
          body: payload,
        });
        expect(response.status, what).to.equal(400);
        expect(await response.json(), what).to.include({ code: 'PAYMENT_EVENT_REFUSED' });
      }
      expect(await read(order.id)).to.deep.equal(before);
      const genuine = await sales.request('/api/payment-events', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signed(body, now) },
        body,
      });
      expect(genuine.status, 'the same body, signed now with the secret').to.equal(200);
      // The refused deliveries took nothing, not even the event's id: the genuine one is the first, and pays the order.
      const paid = await until('paid by the genuine event', order.id, (o) => o.status === 'paid');
      expect(paid.payment).to.include({ status: 'authorized', amount: 10 });
    });

    it('shows a declined card on the order, and is paid by the card after it', async () => {
      const order = await authorising();
      const declined = await confirm(order, 'pm_card_chargeDeclined');
      expect(declined.status).to.equal(402);
      const refused = await until('the decline', order.id, (o) => o.payment?.lastError !== undefined);
      expect(refused).to.include({ status: 'reserved' });
      expect(refused.payment).to.include({ status: 'requires_payment_method' });
      await confirm(order);
      const paid = await until('paid', order.id, (o) => o.status === 'paid');
      expect(paid.payment).to.include({ status: 'authorized' }).and.not.have.property('lastError');
    });

    it('cancels the authorisation of an order cancelled after payment', async () => {
      const order = await authorising();
      await confirm(order);
      await until('paid', order.id, (o) => o.status === 'paid');
      const cancelled = await sales.json<OrderJson>('POST', `/api/orders/${order.id}/cancel`);
      expect(cancelled.body).to.include({ status: 'cancelled', paymentToRelease: true });
      const released = await until('released', order.id, (o) => o.payment?.status === 'canceled');
      expect(released).not.to.have.property('paymentToRelease');
      const intent = await fetch(`${providerUrl}/v1/payment_intents/${order.payment!.intentId}`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(((await intent.json()) as { status: string }).status).to.equal('canceled');
    });

    it('gives back the money of an order paid after its hold lapsed (unfulfilled), and of one confirmed as it expired', async () => {
      const late = await authorising();
      await confirm(late);
      await until('paid', late.id, (o) => o.status === 'paid');
      await fromStock(
        newEvent('stock.reservation.commit_failed', { orderId: late.id, reason: 'the hold had expired' }),
      );
      const unfulfilled = await until('given back', late.id, (o) => o.payment?.status === 'canceled');
      expect(unfulfilled).to.include({ status: 'unfulfilled' }).and.not.have.property('paymentToRelease');

      const racing = await authorising();
      await confirm(racing);
      // The hold lapses while the provider's authorisation is on its way (late, by the chaos).
      await fromStock(
        newEvent('stock.reservation.expired', {
          orderId: racing.id,
          reservationId: (await read(racing.id)).reservationId!,
        }),
      );
      const expired = await until('given back', racing.id, (o) => o.payment?.status === 'canceled');
      expect(expired.status).to.equal('expired');
    });

    it('records a capture the provider refuses for good on the order, says so once, counts it, and owes it no more', async () => {
      const order = await authorising();
      // Sales hears, genuinely signed, that the total is held, though the buyer never confirmed at the provider: the
      // intent still waits for a payment method there, so the capture at the first shipment is refused for good.
      const body = capturableEvent(order);
      const heard = await sales.request('/api/payment-events', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': signed(body, Math.floor(Date.now() / 1000)),
        },
        body,
      });
      expect(heard.status).to.equal(200);
      await until('paid', order.id, (o) => o.status === 'paid');
      await ship(order.id, 1);
      const refused = await until('the refusal recorded', order.id, (o) => o.payment?.refusedCall !== undefined);
      expect(refused.status).to.equal('shipped');
      expect(refused.payment).to.include({ status: 'authorized', refusedCall: 'capture', capturedAmount: 0 });
      expect(refused.payment!.lastError).to.match(
        /could not be captured because it has a status of requires_payment_method/,
      );
      const intent = await fetch(`${providerUrl}/v1/payment_intents/${order.payment!.intentId}`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(await intent.json()).to.include({ status: 'requires_payment_method', amount_received: 0 });
      // Owed no more: the worker never takes the order again.
      const stored = await sales.service.container.resolve(Tokens.OrderRepository).findById(order.id);
      expect(stored!.paymentWork()).to.equal(undefined);
      const metrics = await (await sales.request('/metrics')).text();
      expect(metrics).to.include('sales_payment_calls_refused_total{call="capture"} 1');
      const warnings = sales.logs.filter(
        (line) => line.orderId === order.id && String(line.message).includes('refused a call for good'),
      );
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.include({ level: 'warn', call: 'capture' });
    });

    it('captures once at the first shipment, and 20 refunds at once never give back more than was captured', async () => {
      const order = await authorising(3);
      await confirm(order);
      await until('paid', order.id, (o) => o.status === 'paid');
      await ship(order.id, 1);
      await ship(order.id, 2);
      const captured = await until('captured', order.id, (o) => o.payment?.status === 'captured');
      expect(captured.payment).to.include({ amount: 30, capturedAmount: 30 });
      const refunds = await Promise.all(
        Array.from({ length: 20 }, () =>
          sales.json<{ id: string; code?: string }>(
            'POST',
            `/api/orders/${order.id}/refunds`,
            { amount: 2.5, reason: 'twenty at once' },
            { 'Idempotency-Key': randomUUID() },
          ),
        ),
      );
      expect(refunds.filter((r) => r.status === 202)).to.have.length(12);
      expect(refunds.filter((r) => r.status === 409).map((r) => r.body.code)).to.deep.equal(
        Array.from({ length: 8 }, () => 'REFUND_EXCEEDS_CAPTURED'),
      );
      const settled = await until('every refund settled', order.id, (o) =>
        o.refunds.every((r) => r.status !== 'pending'),
      );
      expect(settled.refunds.map((r) => r.status)).to.deep.equal(Array.from({ length: 12 }, () => 'succeeded'));
      expect(settled.payment).to.include({ status: 'refunded', capturedAmount: 30, refundedAmount: 30 });
    });
  });
}
