import { Apis } from '@commerce/contracts';
import { createScratchVhost, eventually, type ScratchVhost } from '@platform/test-kit';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startWholeSystem, type WholeSystem } from './support';

/** start:system's offline provider key (its default), as a buyer's client presents it to confirm a payment. */
const PAYMENTS_KEY = 'sk_test_start_system_offline';
/** A hold short enough for the test to see one lapse, long enough for the other orders to be paid within it. */
const RESERVATION_TTL_SECONDS = 25;

interface Payment {
  status: string;
  intentId: string;
  clientSecret?: string;
  amount: number;
  currency: string;
  capturedAmount: number;
  refundedAmount: number;
  lastError?: string;
  refusedCall?: string;
}
interface OrderJson {
  id: string;
  buyer: string;
  status: string;
  total: number;
  failureReason?: string;
  paymentToRelease?: true;
  payment?: Payment;
  refunds: { id: string; amount: number; reason: string; status: string }[];
}
interface Answer<T> {
  status: number;
  body: T;
}

/**
 * The payments part of issue 34, as a shop runs it: `pnpm start:system` (identity issuing client-credentials tokens,
 * the gateway, stock, sales and the offline provider, each a process of its own, tokens on), every call through the
 * gateway with the development clients' tokens, the buyer confirming each payment at the provider with Stripe's test
 * cards, and every amount a decimal as prices are.
 */
describe('Payments through the gateway, tokens on: authorised, captured, refunded, declined, cancelled, too late', function () {
  this.timeout(240_000);
  let vhost: ScratchVhost;
  let data: string;
  let system: WholeSystem;

  before(async function () {
    vhost = await createScratchVhost(this);
    data = mkdtempSync(join(tmpdir(), 'payments-'));
    // start:system hands its environment to every service: the hold's length and sweep reach stock, the webhook retry
    // settings the provider (a delivery the gateway does not answer is tried again within a second).
    system = await startWholeSystem({
      AMQP_URL: vhost.url,
      DATA_DIR: data,
      RESERVATION_TTL_SECONDS: String(RESERVATION_TTL_SECONDS),
      RESERVATION_SWEEP_MS: '200',
      PAYMENTS_RETRY_FIRST_MS: '200',
      PAYMENTS_RETRY_MAX_MS: '1000',
      PAYMENTS_DELIVERY_TIMEOUT_MS: '2000',
    });
  });
  after(async () => {
    await system?.process.stop('SIGTERM');
    await vhost?.drop();
    if (data) rmSync(data, { recursive: true, force: true });
  });

  /** A development client's token for `audience`, from identity through the gateway. */
  const token = async (clientId: string, audience: string): Promise<string> => {
    const clients = JSON.parse(readFileSync(join(data, 'identity-clients.json'), 'utf8')) as {
      clientId: string;
      clientSecret: string;
    }[];
    const { clientSecret } = clients.find((client) => client.clientId === clientId)!;
    const response = await fetch(`${system.gateway}/identity/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: audience }),
    });
    expect(response.status, `${clientId}'s token`).to.equal(200);
    return ((await response.json()) as { access_token: string }).access_token;
  };

  /** A JSON call as `bearer`, to `base` (the gateway, unless a test reaches a service directly). */
  const call = async <T>(
    bearer: string,
    method: string,
    path: string,
    body?: unknown,
    base = system.gateway,
  ): Promise<Answer<T>> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(method === 'POST' && { 'idempotency-key': randomUUID() }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  };

  /** Stripe's API at the offline provider, as a buyer's client (confirm) or anyone with the key (retrieve) calls it. */
  const provider = async (path: string, form?: Record<string, string>) => {
    const response = await fetch(`http://127.0.0.1:${system.ports.PAYMENTS_PORT}/v1${path}`, {
      method: form ? 'POST' : 'GET',
      headers: {
        authorization: `Bearer ${PAYMENTS_KEY}`,
        ...(form && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form && { body: new URLSearchParams(form) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  /** The start:system child running the gateway: the test freezes it to hold the provider's webhooks back. */
  const gatewayPid = async (): Promise<number> => {
    const { stdout } = await promisify(execFile)('ps', [
      '-o',
      'pid=,args=',
      '--ppid',
      String(system.process.child.pid),
    ]);
    const line = stdout.split('\n').find((candidate) => candidate.includes('packages/gateway/src/main.ts'));
    if (!line) throw new Error(`no gateway among start:system's children:\n${stdout}`);
    return Number(line.trim().split(/\s+/)[0]);
  };

  it('takes, captures once, refunds, declines, releases and gives back every order’s money to the cent', async () => {
    const stock = await token('stock-admin', Apis.stock.audience);
    const buyer = await token('demo', Apis.sales.audience);
    const admin = await token('orders-admin', Apis.sales.audience);

    const product = async (name: string, price: number) => {
      const created = await call<{ id: number }>(stock, 'POST', '/api/products', { name, price, quantityInStock: 20 });
      expect(created.status, name).to.equal(201);
      return created.body.id;
    };
    const lamp = await product('Reading lamp', 19.99);
    const shade = await product('Linen shade', 7.45);
    const read = async (id: string, as = buyer) => (await call<OrderJson>(as, 'GET', `/api/orders/${id}`)).body;
    const until = (what: string, id: string, done: (order: OrderJson) => boolean, base = system.gateway) =>
      eventually(what, 60_000, async () => {
        const order = (await call<OrderJson>(buyer, 'GET', `/api/orders/${id}`, undefined, base)).body;
        return done(order) && order;
      });
    /** Placed by the buyer; answers the order once sales has the provider's authorisation to confirm. */
    const place = async (lines: { productId: number; quantity: number }[]) => {
      const placed = await call<OrderJson>(buyer, 'POST', '/api/orders', { lines });
      expect(placed.status).to.equal(202);
      return until('reserved, with an authorisation to confirm', placed.body.id, (o) => o.payment !== undefined);
    };
    const confirm = (order: OrderJson, paymentMethod: string) =>
      provider(`/payment_intents/${order.payment!.intentId}/confirm`, { payment_method: paymentMethod });
    const intent = async (order: OrderJson) => (await provider(`/payment_intents/${order.payment!.intentId}`)).body;

    // (a), (b) and (c) are placed at once: each is paid well within its hold.
    const [a, b, c] = await Promise.all([
      place([
        { productId: lamp, quantity: 3 },
        { productId: shade, quantity: 2 },
      ]),
      place([{ productId: lamp, quantity: 1 }]),
      place([{ productId: shade, quantity: 3 }]),
    ]);
    // 19.99 × 3 + 7.45 × 2; 19.99; 7.45 × 3.
    expect([a, b, c].map((o) => [o.status, o.total, o.payment!.amount, o.payment!.currency])).to.deep.equal([
      ['reserved', 74.87, 74.87, 'EUR'],
      ['reserved', 19.99, 19.99, 'EUR'],
      ['reserved', 22.35, 22.35, 'EUR'],
    ]);
    expect(a).to.include({ buyer: 'demo' });
    expect(a.payment).to.include({ status: 'requires_payment_method', capturedAmount: 0, refundedAmount: 0 });
    expect(a.payment!.clientSecret, 'the buyer sees the client secret').to.match(/^pi_.+_secret_/);
    expect((await read(a.id, admin)).payment, 'an admin does not').not.to.have.property('clientSecret');
    expect(await intent(a)).to.include({ amount: 7487, currency: 'eur', capture_method: 'manual' });

    // (b) declined first: the order waits, and says why.
    const declined = await confirm(b, 'pm_card_chargeDeclined');
    expect(declined.status).to.equal(402);
    const [visaA, visaC] = await Promise.all([confirm(a, 'pm_card_visa'), confirm(c, 'pm_card_visa')]);
    expect([visaA.body.status, visaC.body.status]).to.deep.equal(['requires_capture', 'requires_capture']);
    const refused = await until('the decline shown', b.id, (o) => o.payment?.lastError !== undefined);
    expect(refused.status).to.equal('reserved');
    expect(refused.payment).to.include({ status: 'requires_payment_method', amount: 19.99, capturedAmount: 0 });
    expect(refused.payment!.lastError).to.match(/declined/i);
    expect((await confirm(b, 'pm_card_visa')).body.status).to.equal('requires_capture');

    // Paid only from the provider's signed webhooks, through the gateway.
    const [paidA, paidB] = await Promise.all([a, b, c].map((o) => until('paid', o.id, (now) => now.status === 'paid')));
    expect(paidA!.payment).to.include({ status: 'authorized', amount: 74.87, capturedAmount: 0 });
    expect(paidB!.payment).to.include({ status: 'authorized', amount: 19.99 }).and.not.have.property('lastError');

    // (c) cancelled after authorisation: the authorisation is released at the provider; nothing was taken.
    const cancel = await call<OrderJson>(buyer, 'POST', `/api/orders/${c.id}/cancel`);
    expect(cancel.status).to.equal(200);
    expect(cancel.body).to.include({ status: 'cancelled', paymentToRelease: true });
    const released = await until('released', c.id, (o) => o.payment?.status === 'canceled');
    expect(released).to.include({ status: 'cancelled' }).and.not.have.property('paymentToRelease');
    expect(released.payment).to.include({ amount: 22.35, capturedAmount: 0, refundedAmount: 0 });
    expect(released.refunds).to.deep.equal([]);
    expect(await intent(c)).to.include({ status: 'canceled', amount_received: 0, amount_capturable: 0 });

    // (a) shipped in two shipments once stock committed its units: captured once, at the first, all of the total.
    const committed = async (id: number) =>
      (await call<{ committedQuantity: number }>(stock, 'GET', `/api/products/${id}`)).body.committedQuantity;
    // (a)'s and (b)'s lamps, (a)'s shades ((c)'s released).
    await eventually(
      'stock committed what was paid',
      30_000,
      async () => (await committed(lamp)) === 4 && (await committed(shade)) === 2,
    );
    const ship = async (lines: { productId: number; quantity: number }[]) => {
      const shipment = await call(stock, 'POST', '/api/shipments', { orderId: a.id, lines });
      expect(shipment.status).to.equal(201);
    };
    await ship([{ productId: lamp, quantity: 2 }]);
    const first = await until('captured at the first shipment', a.id, (o) => o.payment?.status === 'captured');
    expect(first.status).to.equal('partially_shipped');
    expect(first.payment).to.include({ amount: 74.87, capturedAmount: 74.87, refundedAmount: 0 });
    await ship([
      { productId: lamp, quantity: 1 },
      { productId: shade, quantity: 2 },
    ]);
    const shipped = await until('shipped', a.id, (o) => o.status === 'shipped');
    expect(shipped.payment).to.include({ status: 'captured', capturedAmount: 74.87 });
    expect(shipped.payment, 'no second capture was tried').not.to.have.any.keys('lastError', 'refusedCall');
    expect(await intent(a)).to.include({ status: 'succeeded', amount_received: 7487, amount_capturable: 0 });

    // Partly returned (a lamp and a shade), and refunded for exactly those units: 19.99 + 7.45.
    const returned = await call(stock, 'POST', '/api/returns', {
      orderId: a.id,
      lines: [
        { productId: lamp, quantity: 1, locationId: 1, disposition: 'restock' },
        { productId: shade, quantity: 1, locationId: 1, disposition: 'damaged' },
      ],
    });
    expect(returned.status).to.equal(201);
    const refund = await call<{ id: string; amount: number; status: string }>(
      admin,
      'POST',
      `/api/orders/${a.id}/refunds`,
      {
        amount: 27.44,
        reason: 'a lamp and a shade came back',
      },
    );
    expect(refund.status).to.equal(202);
    expect(refund.body).to.include({ amount: 27.44, status: 'pending' });
    const refunded = await until('the refund settled by the webhook', a.id, (o) =>
      o.refunds.every((r) => r.status !== 'pending'),
    );
    expect(refunded.status).to.equal('shipped');
    expect(refunded.refunds.map((r) => [r.id, r.amount, r.status])).to.deep.equal([
      [refund.body.id, 27.44, 'succeeded'],
    ]);
    expect(refunded.payment).to.include({ status: 'captured', capturedAmount: 74.87, refundedAmount: 27.44 });
    // What is left to refund is what was captured less that: a cent more is refused.
    const beyond = await call<{ code: string }>(admin, 'POST', `/api/orders/${a.id}/refunds`, {
      amount: 47.44,
      reason: 'more than is left',
    });
    expect([beyond.status, beyond.body.code]).to.deep.equal([409, 'REFUND_EXCEEDS_CAPTURED']);

    // (d) confirmed by its buyer, but the provider's word reaches sales only after the hold lapsed: the gateway, which
    // the webhooks pass, is frozen meanwhile (the test reads sales directly). Sales gives the authorisation back.
    const d = await place([{ productId: lamp, quantity: 2 }]);
    expect(d.payment).to.include({ amount: 39.98 });
    const gateway = await gatewayPid();
    const sales = `http://127.0.0.1:${system.ports.SALES_PORT}`;
    /** The authorisation events sales took, whatever it did with them (its metrics, read on its own port). */
    const authorisedEvents = async () => {
      const metrics = await (await fetch(`${sales}/metrics`)).text();
      return metrics
        .split('\n')
        .filter((line) => line.startsWith('sales_payment_events_total{type="authorized"'))
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    };
    const heardBefore = await authorisedEvents();
    process.kill(gateway, 'SIGSTOP');
    try {
      expect((await confirm(d, 'pm_card_visa')).body.status).to.equal('requires_capture');
      const expired = await eventually('the hold lapsed and the money given back', 120_000, async () => {
        const order = (await call<OrderJson>(buyer, 'GET', `/api/orders/${d.id}`, undefined, sales)).body;
        return order.status === 'expired' && order.payment?.status === 'canceled' && order;
      });
      expect(expired.payment).to.include({ amount: 39.98, capturedAmount: 0, refundedAmount: 0 });
    } finally {
      process.kill(gateway, 'SIGCONT');
    }
    // The held-back webhooks arrive now, the authorisation among them: it pays nothing and moves nothing back.
    await eventually(
      "(d)'s late authorisation delivered",
      60_000,
      async () => (await authorisedEvents()) > heardBefore,
    );
    const givenBack = await read(d.id);
    expect(givenBack).to.include({ status: 'expired' }).and.not.have.property('paymentToRelease');
    expect(givenBack.payment).to.include({ status: 'canceled', amount: 39.98, capturedAmount: 0, refundedAmount: 0 });
    expect(givenBack.refunds).to.deep.equal([]);
    expect(await intent(d)).to.include({ status: 'canceled', amount_received: 0, amount_capturable: 0 });

    // Nothing else moved: (a) as refunded, (b) paid and waiting to ship, (c) released.
    expect((await read(a.id)).payment).to.include({ capturedAmount: 74.87, refundedAmount: 27.44 });
    expect(await read(b.id)).to.deep.include({ status: 'paid' });
    expect((await read(c.id)).payment).to.include({ status: 'canceled', capturedAmount: 0 });
  });
});
