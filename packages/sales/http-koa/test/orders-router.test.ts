import { newEvent } from '@commerce/contracts';
import { Money } from '@commerce/shared-kernel';
import { HandleStockEvent, type StockEvent } from '@sales/application';
import { FAKE_SIGNATURE } from '@sales/domain/testing';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { type SalesAppUnderTest, startSalesApp } from './sales-app';

type OrderJson = {
  id: string;
  status: string;
  buyer: string;
  total: number;
  lines: {
    productId: number;
    name: string;
    unitPrice: number;
    quantity: number;
    lineTotal: number;
    allocations: { locationId: number; quantity: number }[];
    shippedQuantity: number;
    returnedQuantity: number;
  }[];
  paymentToRelease?: true;
  payment?: {
    status: string;
    intentId: string;
    clientSecret?: string;
    amount: number;
    currency: string;
    capturedAmount: number;
    refundedAmount: number;
    lastError?: string;
  };
  refunds: { id: string; amount: number; reason: string; status: string }[];
  createdAt: string;
  updatedAt: string;
};
type ProblemJson = {
  code: string;
  detail: string;
  productIds?: number[];
  orderStatus?: string;
  refundable?: number;
  errors?: Record<string, string[]>;
};

describe('The orders router', function () {
  let sales: SalesAppUnderTest;
  const lamp = 1;
  const pen = 2;

  before(async () => {
    sales = await startSalesApp({
      products: [
        { id: lamp, name: 'Desk lamp', price: Money.fromDecimalString('39.9') },
        { id: pen, name: 'Pen', price: Money.fromDecimalString('0.1') },
      ],
    });
  });
  after(async () => sales?.close());

  const place = (lines: unknown, headers: Record<string, string> = {}) =>
    sales.json<OrderJson & ProblemJson>('POST', '/api/orders', { lines }, headers);

  it('places an order: 202, Location, pending, each line priced by stock, money exact', async () => {
    const { status, headers, body } = await place([
      { productId: pen, quantity: 3 },
      { productId: lamp, quantity: 2 },
      { productId: pen, quantity: 4 },
    ]);
    expect(status).to.equal(202);
    expect(headers.get('location')).to.equal(`/api/orders/${body.id}`);
    expect(headers.get('etag')).to.equal('"1"');
    expect(body).to.deep.include({ status: 'pending', buyer: 'anonymous', total: 80.5 });
    expect(body.lines).to.deep.equal(
      [
        { productId: lamp, name: 'Desk lamp', unitPrice: 39.9, quantity: 2, lineTotal: 79.8 },
        { productId: pen, name: 'Pen', unitPrice: 0.1, quantity: 7, lineTotal: 0.7 },
      ]
        .map((line) => ({ ...line, allocations: [], shippedQuantity: 0, returnedQuantity: 0 }))
        .sort((a, b) => a.productId - b.productId),
    );
    expect(body.createdAt).to.equal(body.updatedAt);
    const read = await sales.json<OrderJson>('GET', `/api/orders/${body.id}`);
    expect(read.body).to.deep.equal(body);
  });

  it('refuses unknown products with 422 naming them, and records nothing', async () => {
    const before = (await sales.json<OrderJson[]>('GET', '/api/orders?limit=1000')).body.length;
    const { status, body } = await place([
      { productId: lamp, quantity: 1 },
      { productId: 999_998, quantity: 1 },
      { productId: 999_999, quantity: 1 },
    ]);
    expect(status).to.equal(422);
    expect(body).to.include({ code: 'UNKNOWN_PRODUCTS' });
    expect(body.productIds).to.deep.equal([999_998, 999_999]);
    expect((await sales.json<OrderJson[]>('GET', '/api/orders?limit=1000')).body).to.have.length(before);
  });

  for (const [name, lines, field] of [
    ['no lines', [], 'lines'],
    ['101 lines', Array.from({ length: 101 }, (_, i) => ({ productId: i + 1, quantity: 1 })), 'lines'],
    ['a quantity of 0', [{ productId: 1, quantity: 0 }], 'lines'],
    ['a quantity of 1.5', [{ productId: 1, quantity: 1.5 }], 'lines'],
    [
      'one product summing past 10000',
      [
        { productId: 1, quantity: 6000 },
        { productId: 1, quantity: 5000 },
      ],
      'lines',
    ],
    ['a product id of 0', [{ productId: 0, quantity: 1 }], 'lines'],
    ['a quantity given as text', [{ productId: 1, quantity: '2' }], 'lines[0].quantity'],
    ['a line that is not an object', [7], 'lines[0]'],
    ['an unknown property in a line', [{ productId: 1, quantity: 1, colour: 'red' }], 'lines[0].colour'],
    ['lines that are not an array', { productId: 1 }, 'lines'],
  ] as const) {
    it(`refuses ${name} with a 400 naming ${field}`, async () => {
      const { status, body } = await place(lines);
      expect(status).to.equal(400);
      expect(body.code).to.equal('VALIDATION_FAILED');
      expect(body.errors).to.have.property(field);
    });
  }

  it('refuses a body that is not an object, and an unknown property', async () => {
    expect((await sales.json('POST', '/api/orders', [])).status).to.equal(400);
    const { status, body } = await sales.json<ProblemJson>('POST', '/api/orders', {
      lines: [{ productId: lamp, quantity: 1 }],
      coupon: 'X',
    });
    expect(status).to.equal(400);
    expect(body.errors).to.have.property('coupon');
  });

  it('places once per Idempotency-Key, and refuses the key with other lines', async () => {
    const key = randomUUID();
    const first = await place([{ productId: lamp, quantity: 1 }], { 'Idempotency-Key': key });
    const again = await place([{ productId: lamp, quantity: 1 }], { 'Idempotency-Key': key });
    expect(again.status).to.equal(202);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    const other = await place([{ productId: lamp, quantity: 2 }], { 'Idempotency-Key': key });
    expect(other.status).to.equal(422);
    expect(other.body.code).to.equal('IDEMPOTENCY_KEY_REUSED');
  });

  it('answers 304 to If-None-Match with the current ETag', async () => {
    const { body } = await place([{ productId: pen, quantity: 1 }]);
    const response = await sales.request(`/api/orders/${body.id}`, { headers: { 'If-None-Match': '"1"' } });
    expect(response.status).to.equal(304);
    expect(response.headers.get('etag')).to.equal('"1"');
    expect((await sales.request(`/api/orders/${body.id}`, { headers: { 'If-None-Match': '"7"' } })).status).to.equal(
      200,
    );
  });

  it('cancels a pending order once, and answers the cancelled order to a second cancel', async () => {
    const { body } = await place([{ productId: pen, quantity: 1 }]);
    const cancelled = await sales.json<OrderJson>('POST', `/api/orders/${body.id}/cancel`);
    expect(cancelled.status).to.equal(200);
    expect(cancelled.body.status).to.equal('cancelled');
    expect(cancelled.headers.get('etag')).to.equal('"2"');
    expect((await sales.json<OrderJson>('POST', `/api/orders/${body.id}/cancel`)).body.status).to.equal('cancelled');
  });

  /** Stock's part, as its events would play it: applied to the order through the use case sales' consumer calls. */
  const fromStock = (event: StockEvent) =>
    new HandleStockEvent(sales.store.unitOfWork, { clock: () => new Date(), consumer: 'sales-service' }).execute(event);
  const confirm = (orderId: string) =>
    fromStock(
      newEvent(
        'stock.reservation.confirmed',
        { orderId, reservationId: randomUUID(), expiresAt: new Date(Date.now() + 60_000).toISOString() },
        new Date(),
      ),
    );
  const ship = (orderId: string, productId: number, quantity: number) =>
    fromStock(
      newEvent(
        'stock.shipment.created',
        {
          shipmentId: randomUUID(),
          orderId,
          lines: [{ productId, locationId: 1, quantity }],
          carrier: null,
          trackingNumber: null,
        },
        new Date(),
      ),
    );
  const takeBack = (orderId: string, productId: number, quantity: number) =>
    fromStock(
      newEvent(
        'stock.return.received',
        {
          returnId: randomUUID(),
          orderId,
          lines: [{ productId, locationId: 1, quantity, disposition: 'missing' }],
          reason: null,
        },
        new Date(),
      ),
    );

  /** The provider's webhook, signed as FakePaymentProvider takes it (or not), its body exactly as sent. */
  const webhook = (event: Record<string, unknown>, signature = FAKE_SIGNATURE) =>
    sales.request('/api/payment-events', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature },
      body: JSON.stringify(event),
    });
  const read = async (orderId: string) => (await sales.json<OrderJson>('GET', `/api/orders/${orderId}`)).body;
  /** Sales makes the authorisation the order owes (as its worker would); the provider says the total is held. */
  const pay = async (orderId: string) => {
    await sales.paymentWork.execute(orderId);
    const order = await read(orderId);
    return webhook({
      kind: 'authorized',
      eventId: `evt_${randomUUID()}`,
      occurredAt: new Date().toISOString(),
      intentId: order.payment!.intentId,
      orderId,
      amount: Math.round(order.total * 100),
      currency: 'EUR',
    });
  };
  /** The order paid, shipped in part (so captured), as stock and the worker would take it. */
  const captured = async (quantity = 2) => {
    const { body } = await place([{ productId: lamp, quantity }]);
    await confirm(body.id);
    await pay(body.id);
    await ship(body.id, lamp, 1);
    await sales.paymentWork.execute(body.id);
    return read(body.id);
  };
  const refund = (orderId: string, body: unknown, key: string | null = randomUUID()) =>
    sales.json<ProblemJson & { id: string; amount: number; reason: string; status: string }>(
      'POST',
      `/api/orders/${orderId}/refunds`,
      body,
      key === null ? {} : { 'Idempotency-Key': key },
    );

  it("shows the authorisation stock's hold led to, and is paid by the provider's signed webhook: 200, paid, its ETag moved on", async () => {
    const { body } = await place([{ productId: lamp, quantity: 1 }]);
    expect(await confirm(body.id)).to.equal('applied');
    await sales.paymentWork.execute(body.id);
    const authorising = await read(body.id);
    expect(authorising.payment).to.deep.equal({
      provider: 'stripe',
      intentId: `pi_${body.id}`,
      clientSecret: `pi_${body.id}_secret_fake`,
      status: 'requires_payment_method',
      amount: 39.9,
      currency: 'EUR',
      capturedAmount: 0,
      refundedAmount: 0,
    });
    const taken = await pay(body.id);
    expect([taken.status, await taken.json()]).to.deep.equal([200, { received: true, outcome: 'applied' }]);
    const paid = await sales.json<OrderJson>('GET', `/api/orders/${body.id}`);
    expect([paid.body.status, paid.body.payment?.status, paid.headers.get('etag')]).to.deep.equal([
      'paid',
      'authorized',
      '"4"',
    ]);
  });

  it('refuses a webhook whose signature is missing or bad with 400 PAYMENT_EVENT_REFUSED, and changes nothing', async () => {
    const { body } = await place([{ productId: lamp, quantity: 1 }]);
    await confirm(body.id);
    await sales.paymentWork.execute(body.id);
    const before = await read(body.id);
    const event = {
      kind: 'authorized',
      eventId: 'evt_forged',
      occurredAt: new Date().toISOString(),
      intentId: before.payment!.intentId,
      orderId: body.id,
      amount: 3990,
      currency: 'EUR',
    };
    for (const signature of ['t=1,v1=forged', '']) {
      const refused = await webhook(event, signature);
      expect(refused.status).to.equal(400);
      expect(refused.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(await refused.json()).to.include({ code: 'PAYMENT_EVENT_REFUSED' });
    }
    expect(await read(body.id)).to.deep.equal(before);
    expect((await webhook(event)).status, 'the same event, genuine').to.equal(200);
  });

  it('answers 200 to a genuine event it does not act on, or about an order it does not know', async () => {
    const other = await webhook({
      kind: 'other',
      eventId: 'evt_o',
      occurredAt: new Date().toISOString(),
      providerType: 'charge.succeeded',
    });
    expect(await other.json()).to.deep.equal({ received: true, outcome: 'ignored' });
    const unknown = await webhook({
      kind: 'canceled',
      eventId: 'evt_u',
      occurredAt: new Date().toISOString(),
      intentId: 'pi_x',
      orderId: randomUUID(),
    });
    expect(await unknown.json()).to.deep.equal({ received: true, outcome: 'unknown-order' });
  });

  it('takes a refund of what was captured: 202 pending, listed on the order, and a repeat answers the same refund', async () => {
    const order = await captured();
    expect(order.payment).to.include({ status: 'captured', capturedAmount: 79.8 });
    const key = randomUUID();
    const made = await refund(order.id, { amount: 39.9, reason: 'One lamp came back' }, key);
    expect(made.status).to.equal(202);
    expect(made.body).to.include({ amount: 39.9, reason: 'One lamp came back', status: 'pending' });
    const again = await refund(order.id, { amount: 39.9, reason: 'One lamp came back' }, key);
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.id]).to.deep.equal([
      202,
      'true',
      made.body.id,
    ]);
    expect((await read(order.id)).refunds.map((r) => [r.id, r.amount, r.status])).to.deep.equal([
      [made.body.id, 39.9, 'pending'],
    ]);
  });

  it('refuses a refund before capture, beyond what was captured, without an Idempotency-Key, or of no money', async () => {
    const { body } = await place([{ productId: lamp, quantity: 1 }]);
    await confirm(body.id);
    await pay(body.id);
    const early = await refund(body.id, { amount: 1, reason: 'r' });
    expect([early.status, early.body.code]).to.deep.equal([409, 'PAYMENT_NOT_CAPTURED']);
    const order = await captured();
    await refund(order.id, { amount: 70, reason: 'most of it' });
    const beyond = await refund(order.id, { amount: 9.81, reason: 'more' });
    expect(beyond.status).to.equal(409);
    expect(beyond.body).to.include({ code: 'REFUND_EXCEEDS_CAPTURED', refundable: 9.8 });
    const keyless = await refund(order.id, { amount: 1, reason: 'r' }, null);
    expect([keyless.status, Object.keys(keyless.body.errors ?? {})]).to.deep.equal([400, ['Idempotency-Key']]);
    const bad = await refund(order.id, { amount: 0, reason: ' ', extra: 1 });
    expect(bad.status).to.equal(400);
    expect(Object.keys(bad.body.errors ?? {})).to.have.members(['amount', 'reason', 'extra']);
    expect((await refund(order.id, { amount: 0.001, reason: 'r' })).status).to.equal(400);
    expect((await refund(randomUUID(), { amount: 1, reason: 'r' })).status).to.equal(404);
    expect((await read(order.id)).refunds).to.have.length(1);
  });

  it('shows each line shipped and returned as stock ships and takes back, through partially_shipped, shipped and returned', async () => {
    const { body } = await place([
      { productId: lamp, quantity: 2 },
      { productId: pen, quantity: 1 },
    ]);
    await confirm(body.id);
    await pay(body.id);
    const readIt = () => read(body.id);
    const counts = (order: OrderJson) => order.lines.map((l) => [l.productId, l.shippedQuantity, l.returnedQuantity]);
    await ship(body.id, lamp, 1);
    const partly = await readIt();
    expect(partly.status).to.equal('partially_shipped');
    expect(counts(partly)).to.deep.equal([
      [lamp, 1, 0],
      [pen, 0, 0],
    ]);
    await ship(body.id, lamp, 1);
    await ship(body.id, pen, 1);
    expect((await readIt()).status).to.equal('shipped');
    await takeBack(body.id, lamp, 2);
    await takeBack(body.id, pen, 1);
    const returned = await readIt();
    expect(returned.status).to.equal('returned');
    expect(counts(returned)).to.deep.equal([
      [lamp, 2, 2],
      [pen, 1, 1],
    ]);
    expect(returned).not.to.have.property('paymentToRelease');
  });

  it('cancels a paid order with nothing shipped, showing its payment owed back, and refuses one partly shipped with 409', async () => {
    const [toCancel, shipping] = [
      (await place([{ productId: lamp, quantity: 2 }])).body,
      (await place([{ productId: lamp, quantity: 2 }])).body,
    ];
    for (const order of [toCancel, shipping]) {
      await confirm(order.id);
      await pay(order.id);
    }
    const cancelled = await sales.json<OrderJson>('POST', `/api/orders/${toCancel.id}/cancel`);
    expect(cancelled.status).to.equal(200);
    expect(cancelled.body).to.include({ status: 'cancelled', paymentToRelease: true });
    await ship(shipping.id, lamp, 1);
    const refused = await sales.json<ProblemJson>('POST', `/api/orders/${shipping.id}/cancel`);
    expect(refused.status).to.equal(409);
    expect(refused.body).to.include({ code: 'ORDER_STATE_CONFLICT', orderStatus: 'partially_shipped' });
    expect(refused.body.detail).to.equal(`Order ${shipping.id} is partially_shipped: it cannot be cancelled.`);
  });

  it('answers 404 for an order that does not exist and 400 for an id that is not one', async () => {
    expect((await sales.json<ProblemJson>('GET', `/api/orders/${randomUUID()}`)).body.code).to.equal('ORDER_NOT_FOUND');
    expect((await sales.json<ProblemJson>('POST', `/api/orders/${randomUUID()}/cancel`)).status).to.equal(404);
    const bad = await sales.json<ProblemJson>('GET', '/api/orders/42');
    expect(bad.status).to.equal(400);
    expect(bad.body.errors).to.have.property('id');
  });

  it('pages orders oldest first by keyset, with a Link to the next page', async () => {
    const placed: string[] = [];
    for (let i = 0; i < 5; i++) placed.push((await place([{ productId: pen, quantity: 1 }])).body.id);
    const all = (await sales.json<OrderJson[]>('GET', '/api/orders?limit=1000')).body.map((o) => o.id);
    expect(all.slice(-5)).to.deep.equal(placed);
    expect([...all].sort()).to.deep.equal(all);
    const start = all[all.length - 6]!;
    const first = await sales.json<OrderJson[]>('GET', `/api/orders?limit=2&after=${start}`);
    expect(first.body.map((o) => o.id)).to.deep.equal(placed.slice(0, 2));
    expect(first.headers.get('link')).to.equal(`</api/orders?limit=2&after=${placed[1]}>; rel="next"`);
    const last = await sales.json<OrderJson[]>('GET', `/api/orders?limit=3&after=${placed[1]}`);
    expect(last.body.map((o) => o.id)).to.deep.equal(placed.slice(2));
    expect(last.headers.get('link')).to.equal(null);
  });

  it('refuses bad paging parameters and unknown ones', async () => {
    for (const query of ['limit=0', 'limit=1001', 'after=7', 'offset=3', 'limit=1&limit=2']) {
      expect((await sales.json('GET', `/api/orders?${query}`)).status, query).to.equal(400);
    }
  });

  it('counts orders by status in /metrics', async () => {
    const text = await (await sales.request('/metrics')).text();
    const pending = Number(/^sales_orders\{status="pending"\} (\d+)$/m.exec(text)?.[1]);
    const cancelled = Number(/^sales_orders\{status="cancelled"\} (\d+)$/m.exec(text)?.[1]);
    expect(pending).to.be.greaterThan(0);
    expect(cancelled).to.be.greaterThan(0);
    const orders = (await sales.json<OrderJson[]>('GET', '/api/orders?limit=1000')).body;
    expect(pending).to.equal(orders.filter((o) => o.status === 'pending').length);
  });

  it('counts payments by status and the webhook events by type and outcome in /metrics', async () => {
    const text = await (await sales.request('/metrics')).text();
    const orders = (await sales.json<OrderJson[]>('GET', '/api/orders?limit=1000')).body;
    const authorized = Number(/^sales_payments\{status="authorized"\} (\d+)$/m.exec(text)?.[1]);
    expect(authorized).to.be.greaterThan(0);
    expect(authorized).to.equal(orders.filter((o) => o.payment?.status === 'authorized').length);
    expect(text).to.match(/^sales_payment_events_total\{type="authorized",outcome="applied"\} [1-9]\d*$/m);
    expect(text).to.match(/^sales_payment_events_total\{type="refused",outcome="refused"\} [1-9]\d*$/m);
    expect(text).to.match(/^sales_payment_events_total\{type="other",outcome="ignored"\} 1$/m);
  });
});
