import { newEvent } from '@commerce/contracts';
import { Broker, EventPublisher } from '@platform/messaging';
import { eventually } from '@platform/test-kit';
import { expect } from 'chai';
import {
  allOrders,
  countByStatus,
  json,
  ledgerSums,
  type Order,
  type OrderSystem,
  payOrder,
  type Product,
  type RunningProcess,
  startOrderSystem,
} from './support';

const quiet = { info() {}, warn() {}, error() {} };

/** The value of one series in a Prometheus text exposition (its name and labels as printed), 0 when it is absent. */
function metricValue(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

for (const backend of ['sqlite', 'postgresql'] as const) {
  describe(`The order flow end to end: stock and sales as processes on ${backend} and RabbitMQ`, function () {
    this.timeout(180_000);
    let system: OrderSystem;
    let stock: RunningProcess;
    let sales: RunningProcess;

    before(async function () {
      // A short hold, swept often: the orders nobody pays or cancels expire within the test.
      system = await startOrderSystem(backend, this, {
        stock: { RESERVATION_TTL_SECONDS: '15', RESERVATION_SWEEP_MS: '200' },
      });
      ({ stock, sales } = system);
    });
    after(async () => system?.stop());

    const product = async (id: number) => (await json<Product>('GET', `${stock.url}/api/products/${id}`)).body;

    it('holds exactly what stock has for 60 concurrent orders, then pays, cancels and expires them, with the ledger summing up', async () => {
      const created = await json<Product>('POST', `${stock.url}/api/products`, {
        name: 'Scarce lamp',
        price: 25.5,
        quantityInStock: 20,
      });
      expect(created.status).to.equal(201);
      const lamp = created.body.id;

      const placed = await Promise.all(
        Array.from({ length: 60 }, () =>
          json<Order>('POST', `${sales.url}/api/orders`, { lines: [{ productId: lamp, quantity: 1 }] }),
        ),
      );
      expect(placed.map((p) => p.status)).to.deep.equal(Array(60).fill(202));
      const settled = await eventually('every order to leave pending', 60_000, async () => {
        const orders = await allOrders(sales.url);
        return orders.length === 60 && orders.every((o) => o.status !== 'pending') && orders;
      });
      expect(countByStatus(settled)).to.deep.equal({ reserved: 20, rejected: 40 });
      expect(await product(lamp)).to.include({ quantityInStock: 20, reservedQuantity: 20, availableQuantity: 0 });
      expect(
        settled.filter((o) => o.status === 'rejected').every((o) => o.failureReason === 'insufficient-stock'),
      ).to.equal(true);

      const reserved = settled.filter((o) => o.status === 'reserved');
      const [toCancel, toPay] = [reserved.slice(0, 5), reserved.slice(5, 15)];
      const [cancels] = await Promise.all([
        Promise.all(toCancel.map((o) => json('POST', `${sales.url}/api/orders/${o.id}/cancel`))),
        Promise.all(toPay.map((o) => payOrder(system, o.id))),
      ]);
      expect(cancels.map((a) => a.status)).to.deep.equal(Array(5).fill(200));
      await eventually('the payments committed and the cancels released', 30_000, async () => {
        const counts = countByStatus(await allOrders(sales.url));
        const lampNow = await product(lamp);
        return (
          counts.paid === 10 &&
          counts.cancelled === 5 &&
          lampNow.quantityInStock === 20 &&
          lampNow.committedQuantity === 10 &&
          lampNow.reservedQuantity === 5
        );
      });

      const final = await eventually('the five unpaid holds to expire', 60_000, async () => {
        const orders = await allOrders(sales.url);
        return countByStatus(orders).expired === 5 && orders;
      });
      expect(countByStatus(final)).to.deep.equal({ rejected: 40, cancelled: 5, paid: 10, expired: 5 });
      const lampAtEnd = await product(lamp);
      // The paid units wait to ship: on hand, committed, not available.
      expect(lampAtEnd).to.include({
        quantityInStock: 20,
        reservedQuantity: 0,
        committedQuantity: 10,
        availableQuantity: 10,
      });
      expect(await ledgerSums(stock.url, lamp)).to.deep.equal({ quantity: 20, reserved: 0, committed: 10 });
    });

    it('has no second effect for a redelivered stock.reservation.confirmed, nor for a second one about the same order', async () => {
      const pen = (
        await json<Product>('POST', `${stock.url}/api/products`, { name: 'Pen', price: 1, quantityInStock: 5 })
      ).body.id;
      const { body: order } = await json<Order>('POST', `${sales.url}/api/orders`, {
        lines: [{ productId: pen, quantity: 1 }],
      });
      // Reserved, and where: stock sends both versions of its confirmation; the allocations show once v2 is handled,
      // whichever came first.
      const reservedOrder = await eventually('the order reserved, with where stock holds it', 30_000, async () => {
        const { body } = await json<Order & { reservationId: string; reservationExpiresAt: string }>(
          'GET',
          `${sales.url}/api/orders/${order.id}`,
        );
        return body.status === 'reserved' && body.lines[0]!.allocations.length > 0 && body;
      });
      expect(reservedOrder.lines[0]!.allocations).to.deep.equal([{ locationId: 1, quantity: 1 }]);
      const broker = new Broker({ url: system.vhost.url, connectionName: 'duplicate publisher', logger: quiet });
      const publisher = new EventPublisher(broker);
      try {
        // Stands in for stock, with the version of the confirmation that says where the lines are held.
        const held = [{ productId: pen, quantity: 1, allocations: [{ locationId: 1, quantity: 1 }] }];
        const confirmed = newEvent('stock.reservation.confirmed.v2', {
          orderId: order.id,
          reservationId: reservedOrder.reservationId,
          expiresAt: '2030-01-01T00:00:00.000Z',
          lines: held,
        });
        const send = (event: { id: string; type: string }) =>
          publisher.publish({ id: event.id, type: event.type, payload: JSON.stringify(event) });
        await send(confirmed);
        await send(confirmed);
        await send(
          newEvent('stock.reservation.confirmed.v2', {
            orderId: order.id,
            reservationId: reservedOrder.reservationId,
            expiresAt: '2031-01-01T00:00:00.000Z',
            lines: held,
          }),
        );
        // Then an event that does change the order, so that once it shows, the three before it have been handled.
        await send(
          newEvent('stock.reservation.expired', { orderId: order.id, reservationId: reservedOrder.reservationId }),
        );
      } finally {
        await publisher.close();
        await broker.close();
      }
      const after = await eventually('the expiry to show', 30_000, async () => {
        const { body } = await json<Order & { reservationExpiresAt: string }>(
          'GET',
          `${sales.url}/api/orders/${order.id}`,
        );
        return body.status === 'expired' && body;
      });
      expect(after.reservationExpiresAt, 'the confirmations changed nothing').to.equal(
        reservedOrder.reservationExpiresAt,
      );
    });

    it("keeps an order's hold out of reach of stock's own API (404 to read, release or commit it), so only the order flow settles it: paid, then committed", async () => {
      const mug = (
        await json<Product>('POST', `${stock.url}/api/products`, { name: 'Mug', price: 4, quantityInStock: 5 })
      ).body.id;
      const { body: order } = await json<Order>('POST', `${sales.url}/api/orders`, {
        lines: [{ productId: mug, quantity: 1 }],
      });
      const reserved = await eventually(`order ${order.id} reserved`, 30_000, async () => {
        const { body } = await json<Order & { reservationId: string }>('GET', `${sales.url}/api/orders/${order.id}`);
        return body.status === 'reserved' && body;
      });
      for (const [method, path] of [
        ['GET', ''],
        ['POST', '/release'],
        ['POST', '/commit'],
      ] as const) {
        const refused = await json<{ code: string }>(
          method,
          `${stock.url}/api/reservations/${reserved.reservationId}${path}`,
        );
        expect([refused.status, refused.body.code], `${method} ${path || '/'}`).to.deep.equal([
          404,
          'RESERVATION_NOT_FOUND',
        ]);
      }
      expect(await product(mug), 'still held').to.include({ quantityInStock: 5, reservedQuantity: 1 });
      // A release that had gone through would have cancelled the order: it would never become paid.
      await payOrder(system, order.id);
      await eventually(
        `the hold of order ${order.id} committed`,
        30_000,
        async () => (await product(mug)).reservedQuantity === 0,
      );
      expect(
        (await json<Order>('GET', `${sales.url}/api/orders/${order.id}`)).body.status,
        'paid, waiting to ship',
      ).to.equal('paid');
      expect(await product(mug)).to.include({
        quantityInStock: 5,
        reservedQuantity: 0,
        committedQuantity: 1,
        availableQuantity: 4,
      });
      expect(await ledgerSums(stock.url, mug)).to.deep.equal({ quantity: 5, reserved: 0, committed: 1 });
    });

    it('counts in /metrics what each service published and consumed, with the lag, and drains its outbox', async () => {
      const scrape = async (url: string) => (await fetch(`${url}/metrics`)).text();
      const drained = (url: string) =>
        eventually(`${url} to publish everything`, 30_000, async () => {
          const text = await scrape(url);
          return text.includes('messaging_outbox_backlog 0') && text;
        });
      // Counted from here: whatever earlier tests left in the counters is the baseline.
      const [stockBefore, salesBefore] = [await drained(stock.url), await drained(sales.url)];
      const cup = (
        await json<Product>('POST', `${stock.url}/api/products`, { name: 'Cup', price: 2, quantityInStock: 2 })
      ).body.id;
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push(
          (await json<Order>('POST', `${sales.url}/api/orders`, { lines: [{ productId: cup, quantity: 1 }] })).body.id,
        );
      const orders = await eventually('the three orders to leave pending', 30_000, async () => {
        const all = await Promise.all(
          ids.map(
            async (id) => (await json<Order & { reservationId?: string }>('GET', `${sales.url}/api/orders/${id}`)).body,
          ),
        );
        return all.every((o) => o.status !== 'pending') && all;
      });
      expect(countByStatus(orders)).to.deep.equal({ reserved: 2, rejected: 1 });
      const [toPay, toConfirmAgain] = orders.filter((o) => o.status === 'reserved');
      await payOrder(system, toPay!.id);
      await eventually(
        'the paid order’s hold committed',
        30_000,
        async () => (await product(cup)).reservedQuantity === 1,
      );
      // One confirmation delivered twice: the second is the inbox's duplicate.
      const broker = new Broker({ url: system.vhost.url, connectionName: 'metrics test publisher', logger: quiet });
      const publisher = new EventPublisher(broker);
      const again = newEvent('stock.reservation.confirmed.v2', {
        orderId: toConfirmAgain!.id,
        reservationId: toConfirmAgain!.reservationId!,
        expiresAt: '2030-01-01T00:00:00.000Z',
        lines: [{ productId: cup, quantity: 1, allocations: [{ locationId: 1, quantity: 1 }] }],
      });
      try {
        for (let i = 0; i < 2; i++)
          await publisher.publish({ id: again.id, type: again.type, payload: JSON.stringify(again) });
      } finally {
        await publisher.close();
        await broker.close();
      }
      const grown = (before: string, after: string, series: string) =>
        metricValue(after, series) - metricValue(before, series);
      // The commit leaves the paid order as it is: its handling shows in the counters alone.
      const salesAfter = await eventually('sales to count the duplicate and the commit', 30_000, async () => {
        const text = await drained(sales.url);
        return (
          grown(
            salesBefore,
            text,
            'messaging_events_consumed_total{type="stock.reservation.confirmed.v2",outcome="duplicate"}',
          ) === 1 &&
          grown(
            salesBefore,
            text,
            'messaging_events_consumed_total{type="stock.reservation.committed",outcome="unchanged"}',
          ) === 1 &&
          text
        );
      });
      const stockAfter = await drained(stock.url);
      expect(
        grown(stockBefore, stockAfter, 'messaging_events_consumed_total{type="sales.order.placed",outcome="held"}'),
      ).to.equal(2);
      expect(
        grown(stockBefore, stockAfter, 'messaging_events_consumed_total{type="sales.order.placed",outcome="rejected"}'),
      ).to.equal(1);
      // Both versions of the confirmation, for the release that publishes them side by side.
      for (const type of ['stock.reservation.confirmed', 'stock.reservation.confirmed.v2'])
        expect(grown(stockBefore, stockAfter, `messaging_events_published_total{type="${type}"}`), type).to.equal(2);
      expect(
        grown(stockBefore, stockAfter, 'messaging_events_published_total{type="stock.reservation.committed"}'),
      ).to.equal(1);
      // The payment committed once. Delivery is at least once: a redelivery of the same event (a lost ack) is the
      // inbox's duplicate, and the lag counts each consume.
      const paidConsumed = (outcome: string) =>
        grown(stockBefore, stockAfter, `messaging_events_consumed_total{type="sales.order.paid",outcome="${outcome}"}`);
      expect(paidConsumed('committed')).to.equal(1);
      expect(grown(stockBefore, stockAfter, 'messaging_event_lag_seconds_count{type="sales.order.paid"}')).to.equal(
        1 + paidConsumed('duplicate'),
      );
      expect(stockAfter).to.include('messaging_broker_connected 1');
      expect(stockAfter).to.include('messaging_dead_letter_messages 0');
      expect(grown(salesBefore, salesAfter, 'messaging_events_published_total{type="sales.order.placed"}')).to.equal(3);
      expect(grown(salesBefore, salesAfter, 'messaging_events_published_total{type="sales.order.paid"}')).to.equal(1);
      // Each reserved order's v2 applies (it confirms, or adds the allocations to a v1 that came first); its v1, which
      // may come first or second, confirms or changes nothing.
      const consumed = (type: string, outcome: string) =>
        grown(salesBefore, salesAfter, `messaging_events_consumed_total{type="${type}",outcome="${outcome}"}`);
      expect(consumed('stock.reservation.confirmed.v2', 'applied')).to.equal(2);
      expect(
        consumed('stock.reservation.confirmed', 'applied') + consumed('stock.reservation.confirmed', 'unchanged'),
      ).to.equal(2);
      expect(
        grown(
          salesBefore,
          salesAfter,
          'messaging_events_consumed_total{type="stock.reservation.committed",outcome="applied"}',
        ),
      ).to.equal(0);
      // The gauge is read from the database at scrape time: it matches what the API lists.
      expect(metricValue(salesAfter, 'sales_orders{status="paid"}')).to.equal(
        countByStatus(await allOrders(sales.url)).paid,
      );
    });
  });
}
