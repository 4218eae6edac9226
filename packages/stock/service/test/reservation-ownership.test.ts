import { CLIENTS } from '@commerce/identity/testing';
import type { Backend } from '@platform/test-kit';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { type RunningStockService, Tokens } from '../src';
import { callWith } from './checked-fetch';
import { type StockWithTokens, startStockWithTokens, twoClients } from './stock-with-tokens';

/** Two integrations that each hold stock for their own orders: two token subjects with the same scopes. */
const HOLDERS = twoClients('shop', ['stock:read', 'stock:reserve']);

interface ReservationJson {
  id: string;
  reference: string;
  status: string;
}

/**
 * Who may reach a reservation and what the ledger shows, with real tokens
 * from the identity service (OWASP API1/API5): an API hold belongs to the
 * subject that made it, and another subject gets a 404; an order's hold is
 * settled by the order flow only, so over HTTP it is a 404 for everyone; a
 * ledger reader sees the reservation and request ids of its own movements
 * only.
 */
for (const backend of ['memory', 'sqlite', 'postgresql'] as Backend[]) {
  describe(`Reservation ownership with tokens on, on ${backend}`, function () {
    this.timeout(60_000);
    let system: StockWithTokens;
    let stock: RunningStockService;
    let tokens: ReadonlyMap<string, string>;

    before(async function () {
      system = await startStockWithTokens(this, backend, HOLDERS, [
        ...HOLDERS,
        CLIENTS.find((c) => c.clientId === 'inventory-sync')!,
      ]);
      ({ stock, tokens } = system);
    });
    after(async () => system?.close());

    /** A call as `clientId`, checked against docs/openapi.yaml. */
    async function as(
      clientId: string,
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ): Promise<Response> {
      const init: RequestInit = {
        method,
        headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      };
      return callWith(`${stock.url}${path}`, tokens.get(clientId), init);
    }
    const product = async (quantityInStock: number) =>
      (
        (await (
          await as('inventory-sync', 'POST', '/api/products', { name: 'Lamp', price: 10, quantityInStock })
        ).json()) as { id: number }
      ).id;
    const reserved = async (productId: number) =>
      ((await (await as('inventory-sync', 'GET', `/api/products/${productId}`)).json()) as { reservedQuantity: number })
        .reservedQuantity;
    const hold = async (
      clientId: string,
      productId: number,
      reference: string = randomUUID(),
      headers: Record<string, string> = {},
    ) => {
      const response = await as(
        clientId,
        'POST',
        '/api/reservations',
        { reference, lines: [{ productId, quantity: 1 }] },
        headers,
      );
      return {
        status: response.status,
        replayed: response.headers.get('idempotent-replayed'),
        reservation: (await response.json()) as ReservationJson,
      };
    };
    const expectNotFound = async (response: Response) => {
      expect(response.status).to.equal(404);
      expect(await response.json()).to.include({ code: 'RESERVATION_NOT_FOUND' });
    };
    /** Holds stock for an order as the consumer does when sales.order.placed arrives. */
    const orderHold = async (productId: number) => {
      const orderId = randomUUID();
      const placed = {
        id: randomUUID(),
        type: 'sales.order.placed' as const,
        occurredAt: new Date().toISOString(),
        data: { orderId, lines: [{ productId, quantity: 1 }] },
      };
      expect(await stock.container.resolve(Tokens.UseCases).reserveForOrder.execute(placed)).to.equal('held');
      const reservations = stock.container.resolve(Tokens.ReservationRepository);
      return {
        orderId,
        reservation: (await reservations.findForOrder(orderId))!,
        current: async (id: string) => (await reservations.findById(id))!,
      };
    };

    it("answers 404 to another subject's GET, commit and release of a hold, and leaves it held", async () => {
      const lamp = await product(5);
      const { reservation } = await hold('shop-a', lamp);
      await expectNotFound(await as('shop-b', 'GET', `/api/reservations/${reservation.id}`));
      await expectNotFound(await as('shop-b', 'POST', `/api/reservations/${reservation.id}/release`));
      await expectNotFound(await as('shop-b', 'POST', `/api/reservations/${reservation.id}/commit`));
      expect(await (await as('shop-a', 'GET', `/api/reservations/${reservation.id}`)).json()).to.include({
        id: reservation.id,
        status: 'held',
      });
      expect(await reserved(lamp)).to.equal(1);
      expect(await (await as('shop-a', 'POST', `/api/reservations/${reservation.id}/commit`)).json()).to.include({
        status: 'committed',
      });
    });

    it('keeps references apart by subject: the same reference from two subjects makes two holds, each answered to its own subject', async () => {
      const lamp = await product(5);
      const reference = `order-${randomUUID()}`;
      const [a, b] = [await hold('shop-a', lamp, reference), await hold('shop-b', lamp, reference)];
      expect([a.status, b.status]).to.deep.equal([201, 201]);
      expect(b.reservation.id).not.to.equal(a.reservation.id);
      const [againA, againB] = [await hold('shop-a', lamp, reference), await hold('shop-b', lamp, reference)];
      expect([againA.status, againA.reservation.id]).to.deep.equal([200, a.reservation.id]);
      expect([againB.status, againB.reservation.id]).to.deep.equal([200, b.reservation.id]);
      expect(await reserved(lamp)).to.equal(2);
    });

    it("never replays another subject's reservation for the same Idempotency-Key", async () => {
      const lamp = await product(5);
      const reference = `order-${randomUUID()}`;
      const key = { 'Idempotency-Key': randomUUID() };
      const first = await hold('shop-a', lamp, reference, key);
      const other = await hold('shop-b', lamp, reference, key);
      expect([other.status, other.replayed]).to.deep.equal([201, null]);
      expect(other.reservation.id).not.to.equal(first.reservation.id);
      const repeat = await hold('shop-a', lamp, reference, key);
      expect([repeat.status, repeat.replayed, repeat.reservation.id]).to.deep.equal([
        201,
        'true',
        first.reservation.id,
      ]);
    });

    it("keeps an order's hold out of reach over HTTP for every subject: 404 on GET, commit and release, and a POST of its order id makes a hold of the caller's own", async () => {
      const lamp = await product(5);
      const { orderId, reservation, current } = await orderHold(lamp);
      for (const clientId of ['shop-a', 'shop-b']) {
        await expectNotFound(await as(clientId, 'GET', `/api/reservations/${reservation.id}`));
        await expectNotFound(await as(clientId, 'POST', `/api/reservations/${reservation.id}/release`));
        await expectNotFound(await as(clientId, 'POST', `/api/reservations/${reservation.id}/commit`));
      }
      expect((await current(reservation.id)).status, 'the order flow alone settles it').to.equal('held');
      const own = await hold('shop-a', lamp, orderId);
      expect(own.status).to.equal(201);
      expect(own.reservation.id).not.to.equal(reservation.id);
      expect(await reserved(lamp)).to.equal(2);
    });

    it('shows a ledger reader who made every movement, but the reservation and request ids of its own movements only', async () => {
      const lamp = await product(10);
      const a = (await hold('shop-a', lamp, randomUUID(), { 'X-Request-Id': 'shop-a-request' })).reservation;
      const b = (await hold('shop-b', lamp, randomUUID(), { 'X-Request-Id': 'shop-b-request' })).reservation;
      const order = (await orderHold(lamp)).reservation;
      const ledger = async (clientId: string) =>
        (await (await as(clientId, 'GET', `/api/products/${lamp}/stock-movements`)).json()) as Record<
          string,
          unknown
        >[];
      const [seenByA, seenByB, seenByWriter] = [
        await ledger('shop-a'),
        await ledger('shop-b'),
        await ledger('inventory-sync'),
      ];
      expect(seenByA.map((m) => m.kind)).to.deep.equal(['created', 'reserved', 'reserved', 'reserved']);
      expect(seenByA[1]).to.include({ reservationId: a.id, requestId: 'shop-a-request' });
      expect(seenByB[2]).to.include({ reservationId: b.id, requestId: 'shop-b-request' });
      for (const [reader, movements] of [
        ['shop-a', seenByA],
        ['shop-b', seenByB],
        ['inventory-sync', seenByWriter],
      ] as const) {
        const ids = movements.flatMap((m) => [m.reservationId, m.requestId]).filter((id) => id !== undefined);
        const own = {
          'shop-a': [a.id, 'shop-a-request'],
          'shop-b': [b.id, 'shop-b-request'],
          'inventory-sync': [movements[0]!.requestId],
        }[reader];
        expect(ids, `the ids ${reader} sees`).to.deep.equal(own);
        expect(ids, 'the order flow’s ids are nobody’s').not.to.include(order.id);
        expect(
          movements.map((m) => m.actor),
          'who made each movement: the writer, each caller, the order flow',
        ).to.deep.equal(['inventory-sync', 'shop-a', 'shop-b', 'sales']);
      }
      expect(seenByWriter[0]!.requestId, 'the product’s creator sees its own request id').to.be.a('string');
    });
  });
}
