import { aProductBody } from '@stock/domain/testing';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { type ApiUnderTest, expectProblem, json, type OrderFlow, type StartApi } from '../support/api-under-test';

interface LevelJson {
  locationId: number;
  onHand: number;
  reserved: number;
  committed: number;
  qualityControl: number;
  damaged: number;
  available: number;
  incoming: number;
}

interface MovementJson {
  kind: string;
  locationId: number;
  quantityDelta: number;
  reservedDelta: number;
  committedDelta: number;
  qualityControlDelta: number;
  damagedDelta: number;
  reasonCode: string;
}

interface ShipmentJson {
  id: string;
  orderId: string;
  lines: { productId: number; locationId: number; quantity: number }[];
  carrier: string | null;
  trackingNumber: string | null;
  createdAt: string;
}

interface ReturnJson {
  id: string;
  orderId: string;
  lines: { productId: number; locationId: number; quantity: number; disposition: string }[];
  reason: string | null;
  createdAt: string;
}

const DEFAULT = 1;
const STATES = ['onHand', 'reserved', 'committed', 'qualityControl', 'damaged'] as const;
const DELTAS = ['quantityDelta', 'reservedDelta', 'committedDelta', 'qualityControlDelta', 'damagedDelta'] as const;

/**
 * POST and GET /api/shipments and /api/returns: an order held at two locations and paid (its hold committed, as
 * sales' paid event does) ships in parts from both, then comes partly back with every disposition, each step leaving
 * every level, state and total as the rules say and the ledger summing to them; and every refusal a problem with
 * nothing moved.
 */
export function fulfilmentHttpSuite(backend: string, start: StartApi): void {
  describe(`Shipments and returns over HTTP on ${backend}`, function () {
    this.timeout(60_000);
    let api: ApiUnderTest;
    let orders: OrderFlow;
    const request = (path: string, init?: RequestInit) => api.request(path, init);
    const body = async <T>(response: Response | Promise<Response>) => (await (await response).json()) as T;

    /** Each named location's level, as [onHand, reserved, committed, qualityControl, damaged, available]. */
    const levels = async (productId: number, ...locationIds: number[]) => {
      const all = await body<LevelJson[]>(request(`/api/products/${productId}/stock-levels`));
      return locationIds.map((id) => {
        const level = all.find((candidate) => candidate.locationId === id);
        return level ? [...STATES.map((state) => level[state]), level.available] : [0, 0, 0, 0, 0, 0];
      });
    };
    const ledger = (productId: number) => body<MovementJson[]>(request(`/api/products/${productId}/stock-movements`));
    /** The ledger's deltas summed per location: each must be its level's states. */
    const expectLedgerToSum = async (productId: number, ...locationIds: number[]) => {
      const movements = await ledger(productId);
      const current = await levels(productId, ...locationIds);
      locationIds.forEach((locationId, index) => {
        const here = movements.filter((movement) => movement.locationId === locationId);
        const sums = DELTAS.map((delta) => here.reduce((sum, movement) => sum + movement[delta], 0));
        expect(sums, `the ledger at location ${locationId}`).to.deep.equal(current[index]!.slice(0, STATES.length));
      });
    };
    const ship = (fields: Record<string, unknown>, headers: Record<string, string> = {}) =>
      request('/api/shipments', json(fields, { headers }));
    const receive = (fields: Record<string, unknown>) => request('/api/returns', json(fields));

    /**
     * A product with 4 units at the default location and 5 at a second (priority 1), and an order of 6 held there:
     * 4 at the default location, then 2 at the second. Paid unless `paid` is false.
     */
    async function aPlacedOrder({ paid = true } = {}) {
      const { id: productId } = await body<{ id: number }>(
        request('/api/products', json(aProductBody({ quantityInStock: 4 }))),
      );
      const code = `loc-${randomUUID().slice(0, 8)}`;
      const second = (
        await body<{ id: number }>(request('/api/locations', json({ code, name: 'Second', priority: 1 })))
      ).id;
      expect(
        (await request(`/api/products/${productId}/stock-adjustments`, json({ delta: 5, locationId: second }))).status,
      ).to.equal(200);
      const orderId = randomUUID();
      await orders.placed(orderId, [{ productId, quantity: 6 }]);
      if (paid) await orders.paid(orderId);
      return { productId, second, orderId };
    }

    before(async function () {
      api = await start(this);
      if (!api.orders) throw new Error('The API under test takes no order events.');
      orders = api.orders;
    });
    after(async () => api?.stop());

    it('ships a paid order in parts from both locations, then takes part of it back with every disposition', async () => {
      const { productId, second, orderId } = await aPlacedOrder();
      // Paid: the held units wait as committed, where they were held; nothing left on hand.
      expect(await levels(productId, DEFAULT, second)).to.deep.equal([
        [4, 0, 4, 0, 0, 0],
        [5, 0, 2, 0, 0, 3],
      ]);

      const first = await ship({
        orderId,
        lines: [
          { productId, quantity: 3, locationId: DEFAULT },
          { productId, quantity: 1, locationId: second },
        ],
        carrier: ' DHL ',
      });
      expect(first.status, await first.clone().text()).to.equal(201);
      const shipped = (await first.json()) as ShipmentJson;
      expect(first.headers.get('location')).to.equal(`/api/shipments/${shipped.id}`);
      expect(shipped).to.deep.include({
        orderId,
        lines: [
          { productId, locationId: DEFAULT, quantity: 3 },
          { productId, locationId: second, quantity: 1 },
        ],
        carrier: 'DHL',
        trackingNumber: null,
      });
      expect(await levels(productId, DEFAULT, second)).to.deep.equal([
        [1, 0, 1, 0, 0, 0],
        [4, 0, 1, 0, 0, 3],
      ]);

      // No location named: from the order's allocations in their order, splitting where one has too few.
      const rest = await body<ShipmentJson>(
        ship({ orderId, lines: [{ productId, quantity: 2 }], trackingNumber: 'T-2' }),
      );
      expect(rest.lines).to.deep.equal([
        { productId, locationId: DEFAULT, quantity: 1 },
        { productId, locationId: second, quantity: 1 },
      ]);
      expect(await levels(productId, DEFAULT, second)).to.deep.equal([
        [0, 0, 0, 0, 0, 0],
        [3, 0, 0, 0, 0, 3],
      ]);
      expect(await body(request(`/api/products/${productId}`))).to.include({
        quantityInStock: 3,
        reservedQuantity: 0,
        committedQuantity: 0,
        availableQuantity: 3,
      });
      await expectProblem(await ship({ orderId, lines: [{ productId, quantity: 1 }] }), 409, 'ORDER_NOT_SHIPPABLE');

      const back = await receive({
        orderId,
        lines: [
          { productId, quantity: 1, locationId: DEFAULT, disposition: 'restock' },
          { productId, quantity: 1, locationId: DEFAULT, disposition: 'quality-control' },
          { productId, quantity: 1, locationId: second, disposition: 'damaged' },
          { productId, quantity: 1, locationId: second, disposition: 'missing' },
        ],
        reason: 'Two arrived broken, one never came back',
      });
      expect(back.status, await back.clone().text()).to.equal(201);
      const returned = (await back.json()) as ReturnJson;
      expect(back.headers.get('location')).to.equal(`/api/returns/${returned.id}`);
      expect(returned).to.deep.include({ orderId, reason: 'Two arrived broken, one never came back' });
      expect(await levels(productId, DEFAULT, second)).to.deep.equal([
        [2, 0, 0, 1, 0, 1],
        [4, 0, 0, 0, 1, 3],
      ]);
      expect(await body(request(`/api/products/${productId}`))).to.include({
        quantityInStock: 6,
        reservedQuantity: 0,
        committedQuantity: 0,
        availableQuantity: 4,
      });
      const kinds = (await ledger(productId)).map(({ kind, locationId, reasonCode }) => [kind, locationId, reasonCode]);
      expect(kinds.slice(-8)).to.deep.equal([
        ['shipped', DEFAULT, 'shipped'],
        ['shipped', second, 'shipped'],
        ['shipped', DEFAULT, 'shipped'],
        ['shipped', second, 'shipped'],
        ['returned', DEFAULT, 'returned'],
        ['returned', DEFAULT, 'returned'],
        ['returned', second, 'returned'],
        ['returned', second, 'returned'],
      ]);
      await expectLedgerToSum(productId, DEFAULT, second);

      // Two of the six are still out: three more is more than shipped and not returned.
      const before = await ledger(productId);
      const refused = await expectProblem(
        await receive({ orderId, lines: [{ productId, quantity: 3, locationId: DEFAULT, disposition: 'restock' }] }),
        409,
        'RETURN_EXCEEDS_SHIPPED',
      );
      expect(refused.returnable).to.deep.equal([{ productId, quantity: 2 }]);
      expect(await ledger(productId)).to.deep.equal(before);

      expect(await body(request(`/api/shipments?orderId=${orderId}`))).to.deep.equal([shipped, rest]);
      expect(await body(request(`/api/shipments/${rest.id}`))).to.deep.equal(rest);
      expect(await body(request(`/api/returns?orderId=${orderId.toUpperCase()}`))).to.deep.equal([returned]);
      expect(await body(request(`/api/returns/${returned.id.toUpperCase()}`))).to.deep.equal(returned);
    });

    it('refuses to ship an order not paid, unknown, or cancelled: 409 ORDER_NOT_SHIPPABLE, nothing moved', async () => {
      const { productId, second, orderId } = await aPlacedOrder({ paid: false });
      const before = await ledger(productId);
      for (const order of [orderId, randomUUID()]) {
        const problem = await expectProblem(
          await ship({ orderId: order, lines: [{ productId, quantity: 1 }] }),
          409,
          'ORDER_NOT_SHIPPABLE',
        );
        expect(problem.orderId).to.equal(order);
      }
      await orders.cancelled(orderId);
      await expectProblem(await ship({ orderId, lines: [{ productId, quantity: 1 }] }), 409, 'ORDER_NOT_SHIPPABLE');
      expect((await ledger(productId)).slice(0, before.length)).to.deep.equal(before);
      expect(await levels(productId, DEFAULT, second)).to.deep.equal([
        [4, 0, 0, 0, 0, 4],
        [5, 0, 0, 0, 0, 5],
      ]);
    });

    it('releases only what did not ship when a partly shipped order is cancelled, and ships no more of it', async () => {
      const { productId, second, orderId } = await aPlacedOrder();
      const shipped = await ship({ orderId, lines: [{ productId, quantity: 3, locationId: DEFAULT }] });
      expect(shipped.status).to.equal(201);
      // Sales refuses this cancel, but one that raced the shipment still arrives: what shipped stays shipped.
      await orders.cancelled(orderId);
      expect(await levels(productId, DEFAULT, second)).to.deep.equal([
        [1, 0, 0, 0, 0, 1],
        [5, 0, 0, 0, 0, 5],
      ]);
      await expectProblem(await ship({ orderId, lines: [{ productId, quantity: 1 }] }), 409, 'ORDER_NOT_SHIPPABLE');
      const back = await receive({
        orderId,
        lines: [{ productId, quantity: 3, locationId: second, disposition: 'restock' }],
      });
      expect(back.status).to.equal(201);
      await expectLedgerToSum(productId, DEFAULT, second);
    });

    it('refuses more than is committed and unshipped where a line asks, naming what can ship: 409, nothing moved', async () => {
      const { productId, second, orderId } = await aPlacedOrder();
      const elsewhere = (
        await body<{ id: number }>(
          request('/api/locations', json({ code: `x-${randomUUID().slice(0, 8)}`, name: 'Empty' })),
        )
      ).id;
      const before = await ledger(productId);
      for (const lines of [
        [{ productId, quantity: 5, locationId: DEFAULT }],
        [{ productId, quantity: 7 }],
        [{ productId, quantity: 1, locationId: elsewhere }],
        [
          { productId, quantity: 4 },
          { productId, quantity: 3 },
        ],
      ]) {
        const problem = await expectProblem(await ship({ orderId, lines }), 409, 'SHIPMENT_EXCEEDS_COMMITTED');
        expect(problem.shippable, JSON.stringify(lines)).to.deep.equal([
          { productId, locationId: DEFAULT, quantity: 4 },
          { productId, locationId: second, quantity: 2 },
        ]);
      }
      const missing = await expectProblem(
        await ship({ orderId, lines: [{ productId, quantity: 1, locationId: 2_000_000_000 }] }),
        404,
        'LOCATION_NOT_FOUND',
      );
      expect(missing.locationId).to.equal(2_000_000_000);
      expect(await ledger(productId)).to.deep.equal(before);
    });

    it('answers 400 naming each bad field of a shipment or a return, and of a read', async () => {
      const orderId = randomUUID();
      const bad = await expectProblem(
        await ship({ orderId: 'order-1', lines: [{ productId: 0, quantity: 1 }, 'x'], carrier: '', extra: 1 }),
        400,
      );
      expect(Object.keys(bad.errors as object)).to.include.members(['extra']);
      const lines = await expectProblem(
        await ship({ orderId, lines: [{ productId: 1, quantity: 0 }, 'x'], carrier: ' ' }),
        400,
        'VALIDATION_FAILED',
      );
      expect(lines.errors).to.deep.equal({ 'lines[1]': ['must be a shipment line, an object'] });
      const fields = await expectProblem(
        await ship({ orderId: 'order-1', lines: [{ productId: 0, quantity: 10_001 }], carrier: ' ' }),
        400,
      );
      expect(fields.errors).to.deep.equal({
        orderId: ['must be an order id (a UUID)'],
        carrier: ['must not be blank (leave it out instead)'],
        'lines[0].productId': ['must be an integer from 1 to 2147483647'],
        'lines[0].quantity': ['must be an integer from 1 to 10000'],
      });
      const noDisposition = await expectProblem(
        await receive({ orderId, lines: [{ productId: 1, quantity: 1, locationId: 1, disposition: 'lost' }] }),
        400,
      );
      expect(noDisposition.errors).to.deep.equal({
        'lines[0].disposition': ['must be one of restock, quality-control, damaged, missing'],
      });
      await expectProblem(await request('/api/shipments'), 400, 'VALIDATION_FAILED');
      await expectProblem(await request('/api/returns?orderId=42'), 400, 'VALIDATION_FAILED');
      await expectProblem(await request('/api/shipments/42'), 400, 'VALIDATION_FAILED');
      await expectProblem(await request(`/api/shipments/${randomUUID()}`), 404, 'SHIPMENT_NOT_FOUND');
      await expectProblem(await request(`/api/returns/${randomUUID()}`), 404, 'RETURN_NOT_FOUND');
      expect(await body(request(`/api/shipments?orderId=${orderId}`))).to.deep.equal([]);
    });

    it('answers a repeated Idempotency-Key with the first shipment, shipping once', async () => {
      const { productId, second, orderId } = await aPlacedOrder();
      const key = randomUUID();
      const shipOne = () =>
        ship({ orderId, lines: [{ productId, quantity: 1, locationId: second }] }, { 'idempotency-key': key });
      const first = await shipOne();
      expect(first.status).to.equal(201);
      const again = await shipOne();
      expect(again.status).to.equal(201);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(await again.json()).to.deep.equal(await first.json());
      expect(await levels(productId, second)).to.deep.equal([[4, 0, 1, 0, 0, 3]]);
      await expectProblem(
        await ship({ orderId, lines: [{ productId, quantity: 2, locationId: second }] }, { 'idempotency-key': key }),
        422,
        'IDEMPOTENCY_KEY_REUSED',
      );
    });
  });
}
