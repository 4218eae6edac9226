import { levelChangedEventId } from '@stock/application';
import { startTracing, type Tracing } from '@platform/runtime';
import { BACKENDS, eventually, exportingTo, type OtlpReceiver, startOtlpReceiver } from '@platform/test-kit';
import { expect } from 'chai';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { Tokens } from '../src';
import { WebhookTokens } from '../src/webhooks';
import { eachWithWebhooks, json, type ServiceUnderTest, startServiceUnderTest, WEBHOOKS_ON } from './support';
import { Receiver } from './webhooks/receiver';

interface Delivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: { type: string; timestamp: string; data: Record<string, unknown> };
  readonly raw: string;
}

/** What the receiver got, in arrival order, each body parsed. */
const deliveries = (receiver: Receiver): Delivery[] =>
  receiver.received.map(({ headers, body }) => ({ headers, body: JSON.parse(body) as Delivery['body'], raw: body }));

async function subscribe(stock: ServiceUnderTest, url: string, events: string[]) {
  const created = await stock.request('/api/webhook-subscriptions', json({ url, events }));
  expect(created.status).to.equal(201);
  return (await created.json()) as { id: string; secret: string };
}

async function createProduct(stock: ServiceUnderTest, quantityInStock: number): Promise<number> {
  const created = await stock.request(
    '/api/products',
    json({ name: 'Lamp', description: '', price: 10, quantityInStock }),
  );
  expect(created.status).to.equal(201);
  return ((await created.json()) as { id: number }).id;
}

async function movementsOf(stock: ServiceUnderTest, productId: number) {
  const answer = await stock.request(`/api/products/${productId}/stock-movements?limit=100`);
  return (await answer.json()) as { id: number; sequence: number; traceId?: string }[];
}

const levelEvents = (received: readonly Delivery[], productId: number) =>
  received.filter((d) => d.body.type === 'stock.level.changed' && d.body.data.productId === productId);

for (const backend of BACKENDS) {
  describe(`stock's webhook events on ${backend}`, () => {
    const the = eachWithWebhooks(backend);

    it('sends one the.stock.level.changed per ledger movement under concurrent changes: sequence +1 per product, in order, no gap, no duplicate, each webhook-id derived from its movement id', async () => {
      const { secret } = await subscribe(the.stock, the.receiver.url, ['stock.level.changed']);
      const [lamp, desk] = [await createProduct(the.stock, 5), await createProduct(the.stock, 0)];
      const adjust = (id: number, delta: number) =>
        the.stock.request(`/api/products/${id}/stock-adjustments`, json({ delta }));
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => adjust(i % 2 === 0 ? lamp : desk, i % 3 === 0 ? 2 : 1)),
      );
      expect(answers.map((a) => a.status)).to.deep.equal(answers.map(() => 200));
      await eventually('every level event', 20_000, () => the.receiver.received.length >= 14);

      for (const productId of [lamp, desk]) {
        const movements = await movementsOf(the.stock, productId);
        expect(movements.map((m) => m.sequence)).to.deep.equal(movements.map((_, i) => i + 1));
        const events = levelEvents(deliveries(the.receiver), productId);
        // Delivered in ledger order: a receiver sees each sequence once, one more than the last.
        expect(events.map((e) => e.body.data.sequence)).to.deep.equal(movements.map((m) => m.sequence));
        expect(events.map((e) => e.body.data.movementId)).to.deep.equal(movements.map((m) => m.id));
        expect(events.map((e) => e.headers['webhook-id'])).to.deep.equal(
          movements.map((m) => `msg_${levelChangedEventId(m.id)}`),
        );
        const last = events.at(-1)!.body.data;
        const product = (await (await the.stock.request(`/api/products/${productId}`)).json()) as {
          quantityInStock: number;
        };
        expect(last).to.include({ onHand: product.quantityInStock, reserved: 0, sku: null, locationId: 1 });
        expect(last.available).to.equal(product.quantityInStock);
      }
      const first = deliveries(the.receiver)[0]!;
      new Webhook(secret).verify(first.raw, {
        'webhook-id': String(first.headers['webhook-id']),
        'webhook-timestamp': String(first.headers['webhook-timestamp']),
        'webhook-signature': String(first.headers['webhook-signature']),
      });
      expect(the.receiver.received).to.have.length(14);
    });

    it('replays { productId, sinceSequence } from the ledger, with the webhook-ids the events had, also for movements no subscription took when they happened', async () => {
      const lamp = await createProduct(the.stock, 3);
      for (const delta of [2, -1, 4])
        await the.stock.request(`/api/products/${lamp}/stock-adjustments`, json({ delta }));
      // The outbox fanned out while no subscription existed: nothing was stored for anyone. Only then a subscription.
      const delivery = the.stock.service.container.resolve(WebhookTokens.Delivery);
      while ((await delivery.fanOut()) > 0);
      const { id } = await subscribe(the.stock, the.receiver.url, ['stock.level.changed']);
      const replay = await the.stock.request(
        `/api/webhook-subscriptions/${id}/replay`,
        json({ productId: lamp, sinceSequence: 2 }),
      );
      expect(replay.status).to.be.within(200, 299);
      await eventually('the replay', 20_000, () => the.receiver.received.length >= 3);
      const movements = await movementsOf(the.stock, lamp);
      const events = levelEvents(deliveries(the.receiver), lamp);
      expect(events.map((e) => e.body.data.sequence)).to.deep.equal([2, 3, 4]);
      expect(events.map((e) => e.headers['webhook-id'])).to.deep.equal(
        movements.slice(1).map((m) => `msg_${levelChangedEventId(m.id)}`),
      );
      expect(events.map((e) => e.body.data.onHand)).to.deep.equal([5, 4, 8]);

      // Once more, now that the events are stored: the same ids again, the same data.
      const again = await the.stock.request(
        `/api/webhook-subscriptions/${id}/replay`,
        json({ productId: lamp, sinceSequence: 4 }),
      );
      expect(again.status).to.be.within(200, 299);
      await eventually('the second replay', 20_000, () => the.receiver.received.length >= 4);
      expect(the.receiver.received.at(-1)!.headers['webhook-id']).to.equal(events.at(-1)!.headers['webhook-id']);
      expect(the.receiver.received.at(-1)!.body).to.equal(events.at(-1)!.raw);
    });

    it('sends the.stock.reservation.held and .ended for API holds: commit, release and expiry', async () => {
      await subscribe(the.stock, the.receiver.url, ['stock.reservation.held', 'stock.reservation.ended']);
      const lamp = await createProduct(the.stock, 10);
      const hold = async (reference: string, ttlSeconds?: number) => {
        const answer = await the.stock.request(
          '/api/reservations',
          json({ reference, lines: [{ productId: lamp, quantity: 2 }], ...(ttlSeconds && { ttlSeconds }) }),
        );
        expect(answer.status).to.equal(201);
        return ((await answer.json()) as { id: string }).id;
      };
      const committed = await hold('cart-1');
      expect((await the.stock.request(`/api/reservations/${committed}/commit`, { method: 'POST' })).status).to.equal(
        200,
      );
      const released = await hold('cart-2');
      expect((await the.stock.request(`/api/reservations/${released}/release`, { method: 'POST' })).status).to.equal(
        200,
      );
      const expired = await hold('cart-3', 1);
      const expire = the.stock.service.container.resolve(Tokens.UseCases).expireReservations;
      await eventually('the hold to expire', 10_000, async () => (await expire.execute()).length > 0);
      await eventually('every reservation event', 20_000, () => the.receiver.received.length >= 6);

      const of = (id: string) =>
        deliveries(the.receiver)
          .filter((d) => d.body.data.reservationId === id)
          .map((d) => d.body);
      for (const [id, status, reference] of [
        [committed, 'committed', 'cart-1'],
        [released, 'released', 'cart-2'],
        [expired, 'expired', 'cart-3'],
      ] as const) {
        const [held, ended] = of(id);
        expect(held!.type).to.equal('stock.reservation.held');
        expect(held!.data).to.deep.include({ reference, origin: 'api' });
        expect(held!.data.owner).to.be.a('string');
        expect(held!.data.lines).to.deep.equal([
          { productId: lamp, quantity: 2, allocations: [{ locationId: 1, quantity: 2 }], backorderedQuantity: 0 },
        ]);
        expect(ended).to.deep.include({ type: 'stock.reservation.ended' });
        expect(ended!.data).to.deep.equal({ reservationId: id, reference, origin: 'api', status });
      }
    });
  });
}

describe("stock's movements and webhook deliveries with tracing on", () => {
  let restoreEnvironment: () => void;
  let otlp: OtlpReceiver;
  let tracing: Tracing;
  let stock: ServiceUnderTest;
  let receiver: Receiver;

  beforeEach(async function () {
    otlp = await startOtlpReceiver();
    restoreEnvironment = exportingTo(otlp.endpoint);
    tracing = await startTracing('stock-test');
    stock = await startServiceUnderTest('sqlite', this, {}, WEBHOOKS_ON);
    receiver = await new Receiver().start();
  });

  afterEach(async () => {
    await stock.stop();
    await receiver.stop();
    await tracing.shutdown();
    restoreEnvironment();
    await otlp.close();
  });

  it("records the request's traceId on its movement, and delivers its event in a client span of that trace, the receiver getting its traceparent", async () => {
    await subscribe(stock, receiver.url, ['stock.level.changed']);
    const lamp = await createProduct(stock, 1);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const adjusted = await stock.request(`/api/products/${lamp}/stock-adjustments`, {
      ...json({ delta: 3 }),
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    expect(adjusted.status).to.equal(200);
    const movements = await movementsOf(stock, lamp);
    expect(movements.at(-1)!.traceId).to.equal(traceId);
    expect(movements[0]!.traceId)
      .to.match(/^[0-9a-f]{32}$/)
      .and.not.equal(traceId);

    await eventually('both deliveries', 20_000, () => receiver.received.length >= 2);
    const delivery = deliveries(receiver).find((d) => d.body.data.movementId === movements.at(-1)!.id)!;
    const [, deliveredTrace, clientSpanId] = String(delivery.headers.traceparent).split('-');
    expect(deliveredTrace).to.equal(traceId);
    await tracing.shutdown();
    const client = otlp.spans.find((s) => s.spanId === clientSpanId)!;
    expect(client).to.include({ traceId, kind: 3, name: 'POST' });
    const write = otlp.spans.find((s) => s.spanId === client.parentSpanId)!;
    expect(write.name).to.equal('outbox write stock.level.changed');
  });
});
