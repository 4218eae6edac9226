import { eventually } from '@platform/test-kit';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { eachWithWebhooks, json } from './support';

/**
 * With WEBHOOKS=on, a subscriber of stock.shipment.created and stock.return.received receives them as stock wrote
 * them to its outbox, and stock.level.changed for each of their movements, whatever the store (the outbox's fan-out
 * is the same on every store: memory here).
 */
describe("stock's webhooks of shipments and returns", () => {
  const the = eachWithWebhooks('memory');

  it('sends each shipment and return to its subscribers, and a level change per movement', async () => {
    const events = ['stock.shipment.created', 'stock.return.received', 'stock.level.changed'];
    expect(
      (await the.stock.request('/api/webhook-subscriptions', json({ url: the.receiver.url, events }))).status,
    ).to.equal(201);
    const created = await the.stock.request('/api/products', json({ name: 'Lamp', price: 10, quantityInStock: 3 }));
    const { id: productId } = (await created.json()) as { id: number };
    const orderId = randomUUID();
    await the.stock.orders!.placed(orderId, [{ productId, quantity: 2 }]);
    await the.stock.orders!.paid(orderId);
    const shipped = await the.stock.request('/api/shipments', json({ orderId, lines: [{ productId, quantity: 2 }] }));
    const { id: shipmentId } = (await shipped.json()) as { id: string };
    const returned = await the.stock.request(
      '/api/returns',
      json({ orderId, lines: [{ productId, quantity: 1, locationId: 1, disposition: 'missing' }] }),
    );
    const { id: returnId } = (await returned.json()) as { id: string };

    const bodies = () =>
      the.receiver.received.map(({ body }) => JSON.parse(body) as { type: string; data: Record<string, unknown> });
    await eventually('the return delivered', 20_000, () => bodies().some((b) => b.type === 'stock.return.received'));
    const received = bodies();
    expect(received.find((b) => b.type === 'stock.shipment.created')?.data).to.deep.equal({
      shipmentId,
      orderId,
      lines: [{ productId, locationId: 1, quantity: 2 }],
      carrier: null,
      trackingNumber: null,
    });
    expect(received.find((b) => b.type === 'stock.return.received')?.data).to.deep.equal({
      returnId,
      orderId,
      lines: [{ productId, locationId: 1, quantity: 1, disposition: 'missing' }],
      reason: null,
    });
    const movements = (await (await the.stock.request(`/api/products/${productId}/stock-movements`)).json()) as {
      id: number;
      kind: string;
    }[];
    const fulfilled = movements.filter((m) => m.kind === 'shipped' || m.kind === 'returned').map((m) => m.id);
    await eventually('a level event per movement', 20_000, () =>
      fulfilled.every((id) => bodies().some((b) => b.type === 'stock.level.changed' && b.data.movementId === id)),
    );
  });
});
