import { newEvent } from '@commerce/contracts';
import { Broker, EventPublisher } from '@platform/messaging-rabbitmq';
import { expect } from 'chai';
import { allOrders, countByStatus, eventually, json, ledgerSums, type Order, type OrderSystem, type Product, type RunningProcess, startOrderSystem } from './support';

const quiet = { info() {}, warn() {}, error() {} };

for (const backend of ['sqlite', 'postgresql'] as const) {
  describe(`The order flow end to end: stock and sales as processes on ${backend} and RabbitMQ`, function () {
    this.timeout(180_000);
    let system: OrderSystem;
    let stock: RunningProcess;
    let sales: RunningProcess;

    before(async function () {
      // A short hold, swept often: the orders nobody pays or cancels expire within the test.
      system = await startOrderSystem(backend, this, { stock: { RESERVATION_TTL_SECONDS: '15', RESERVATION_SWEEP_MS: '200' } });
      ({ stock, sales } = system);
    });
    after(async () => system?.stop());

    const product = async (id: number) => (await json<Product>('GET', `${stock.url}/api/products/${id}`)).body;

    it('holds exactly what stock has for 60 concurrent orders, then pays, cancels and expires them, with the ledger summing up', async () => {
      const created = await json<Product>('POST', `${stock.url}/api/products`, { name: 'Scarce lamp', price: 25.5, quantityInStock: 20 });
      expect(created.status).to.equal(201);
      const lamp = created.body.id;

      const placed = await Promise.all(Array.from({ length: 60 }, () => json<Order>('POST', `${sales.url}/api/orders`, { lines: [{ productId: lamp, quantity: 1 }] })));
      expect(placed.map((p) => p.status)).to.deep.equal(Array(60).fill(202));
      const settled = await eventually('every order to leave pending', 60_000, async () => {
        const orders = await allOrders(sales.url);
        return orders.length === 60 && orders.every((o) => o.status !== 'pending') && orders;
      });
      expect(countByStatus(settled)).to.deep.equal({ reserved: 20, rejected: 40 });
      expect(await product(lamp)).to.include({ quantityInStock: 20, reservedQuantity: 20, availableQuantity: 0 });
      expect(settled.filter((o) => o.status === 'rejected').every((o) => o.failureReason === 'insufficient-stock')).to.equal(true);

      const reserved = settled.filter((o) => o.status === 'reserved');
      const [toCancel, toPay] = [reserved.slice(0, 5), reserved.slice(5, 15)];
      const answers = await Promise.all([
        ...toCancel.map((o) => json('POST', `${sales.url}/api/orders/${o.id}/cancel`)),
        ...toPay.map((o) => json('POST', `${sales.url}/api/orders/${o.id}/payment`)),
      ]);
      expect(answers.map((a) => a.status)).to.deep.equal(Array(15).fill(200));
      await eventually('the payments committed and the cancels released', 30_000, async () => {
        const counts = countByStatus(await allOrders(sales.url));
        const lampNow = await product(lamp);
        return counts.completed === 10 && counts.cancelled === 5 && lampNow.quantityInStock === 10 && lampNow.reservedQuantity === 5;
      });

      const final = await eventually('the five unpaid holds to expire', 60_000, async () => {
        const orders = await allOrders(sales.url);
        return countByStatus(orders).expired === 5 && orders;
      });
      expect(countByStatus(final)).to.deep.equal({ rejected: 40, cancelled: 5, completed: 10, expired: 5 });
      const lampAtEnd = await product(lamp);
      expect(lampAtEnd).to.include({ quantityInStock: 10, reservedQuantity: 0, availableQuantity: 10 });
      expect(await ledgerSums(stock.url, lamp)).to.deep.equal({ quantity: 10, reserved: 0 });
    });

    it('has no second effect for a redelivered stock.reservation.confirmed, nor for a second one about the same order', async () => {
      const pen = (await json<Product>('POST', `${stock.url}/api/products`, { name: 'Pen', price: 1, quantityInStock: 5 })).body.id;
      const { body: order } = await json<Order>('POST', `${sales.url}/api/orders`, { lines: [{ productId: pen, quantity: 1 }] });
      const reservedOrder = await eventually('the order reserved', 30_000, async () => {
        const { body } = await json<Order & { reservationId: string; reservationExpiresAt: string }>('GET', `${sales.url}/api/orders/${order.id}`);
        return body.status === 'reserved' && body;
      });
      const broker = new Broker({ url: system.vhost.url, connectionName: 'duplicate publisher', logger: quiet });
      const publisher = new EventPublisher(broker);
      try {
        const confirmed = newEvent('stock.reservation.confirmed', { orderId: order.id, reservationId: reservedOrder.reservationId, expiresAt: '2030-01-01T00:00:00.000Z' });
        const send = (event: { id: string; type: string }) => publisher.publish({ id: event.id, type: event.type, payload: JSON.stringify(event) });
        await send(confirmed);
        await send(confirmed);
        await send(newEvent('stock.reservation.confirmed', { orderId: order.id, reservationId: reservedOrder.reservationId, expiresAt: '2031-01-01T00:00:00.000Z' }));
        // Then an event that does change the order, so that once it shows, the three before it have been handled.
        await send(newEvent('stock.reservation.expired', { orderId: order.id, reservationId: reservedOrder.reservationId }));
      } finally {
        await publisher.close();
        await broker.close();
      }
      const after = await eventually('the expiry to show', 30_000, async () => {
        const { body } = await json<Order & { reservationExpiresAt: string }>('GET', `${sales.url}/api/orders/${order.id}`);
        return body.status === 'expired' && body;
      });
      expect(after.reservationExpiresAt, 'the confirmations changed nothing').to.equal(reservedOrder.reservationExpiresAt);
    });

    it('counts in /metrics what each service published and consumed, with the lag, and drains its outbox', async () => {
      const metrics = async (url: string) => (await fetch(`${url}/metrics`)).text();
      const stockMetrics = await eventually('stock to have published everything', 30_000, async () => {
        const text = await metrics(stock.url);
        return text.includes('messaging_outbox_backlog 0') && text;
      });
      expect(stockMetrics).to.include('messaging_events_consumed_total{type="sales.order.placed",outcome="held"} 21');
      expect(stockMetrics).to.include('messaging_events_consumed_total{type="sales.order.placed",outcome="rejected"} 40');
      expect(stockMetrics).to.include('messaging_events_published_total{type="stock.reservation.confirmed"} 21');
      expect(stockMetrics).to.include('messaging_broker_connected 1');
      expect(stockMetrics).to.include('messaging_dead_letter_messages 0');
      expect(stockMetrics).to.match(/messaging_event_lag_seconds_count\{type="sales.order.paid"\} 10\n/);
      const salesMetrics = await eventually('sales to have published everything', 30_000, async () => {
        const text = await metrics(sales.url);
        return text.includes('messaging_outbox_backlog 0') && text;
      });
      expect(salesMetrics).to.include('messaging_events_published_total{type="sales.order.placed"} 61');
      expect(salesMetrics).to.include('messaging_events_consumed_total{type="stock.reservation.confirmed",outcome="duplicate"} 1');
      expect(salesMetrics).to.include('sales_orders{status="completed"} 10');
    });
  });
}
