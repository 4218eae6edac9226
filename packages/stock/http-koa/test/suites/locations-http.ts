import { aProductBody } from '@stock/domain/testing';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { type ApiUnderTest, expectProblem, json, type StartApi } from '../support/api-under-test';

interface ProductJson {
  id: number;
  quantityInStock: number;
  reservedQuantity: number;
  committedQuantity: number;
  availableQuantity: number;
  backorderLimit: number;
  backorderedQuantity: number;
  lowStockThreshold: number;
  stockState: string;
}

interface LocationJson {
  id: number;
  code: string;
  name: string;
  priority: number;
}

interface LevelJson {
  locationId: number;
  locationCode: string;
  onHand: number;
  reserved: number;
  committed: number;
  qualityControl: number;
  damaged: number;
  available: number;
  incoming: number;
}

interface ReservationJson {
  id: string;
  status: string;
  lines: { productId: number; quantity: number; allocations: { locationId: number; quantity: number }[] }[];
  backorderedQuantity: number;
}

interface TransferJson {
  id: string;
  status: string;
  reference: string;
  createdAt: string;
}

const DEFAULT = 1;

export function locationsHttpSuite(backend: string, start: StartApi): void {
  describe(`Stock by location over HTTP on ${backend}`, function () {
    this.timeout(60_000);
    let api: ApiUnderTest;
    const request = (path: string, init?: RequestInit) => api.request(path, init);
    const body = async <T>(response: Response | Promise<Response>) => (await (await response).json()) as T;
    const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

    const product = (fields: Record<string, unknown> = {}) =>
      body<ProductJson>(request('/api/products', json(aProductBody(fields))));
    const read = (id: number) => body<ProductJson>(request(`/api/products/${id}`));
    const levels = (id: number) => body<LevelJson[]>(request(`/api/products/${id}/stock-levels`));
    const location = async (priority = 1) => {
      const response = await request('/api/locations', json({ code: unique('loc'), name: 'A warehouse', priority }));
      expect(response.status, await response.clone().text()).to.equal(201);
      return (await response.json()) as LocationJson;
    };
    const adjust = (id: number, delta: number, locationId?: number) =>
      request(
        `/api/products/${id}/stock-adjustments`,
        json({ delta, ...(locationId !== undefined && { locationId }) }),
      );
    const reserve = (lines: unknown[], extra: Record<string, unknown> = {}) =>
      request('/api/reservations', json({ reference: unique('order'), lines, ...extra }));
    const settle = (id: string, to: 'commit' | 'release') =>
      request(`/api/reservations/${id}/${to}`, { method: 'POST' });
    const transfer = (fields: Record<string, unknown>) =>
      request('/api/stock-transfers', json({ reference: unique('transfer'), ...fields }));
    /** Each level's (onHand, reserved, incoming) by location id, for the locations named. */
    const at = async (productId: number, ...locationIds: number[]) => {
      const all = await levels(productId);
      return locationIds.map((id) => {
        const level = all.find((candidate) => candidate.locationId === id);
        return level ? [level.onHand, level.reserved, level.incoming] : [0, 0, 0];
      });
    };
    /** A product with `home` units at the default location and `away` at a new location (priority 1). */
    const stocked = async (home: number, away: number, fields: Record<string, unknown> = {}) => {
      const { id } = await product({ quantityInStock: home, ...fields });
      const place = await location();
      if (away > 0) expect((await adjust(id, away, place.id)).status).to.equal(200);
      return { id, place };
    };

    before(async function () {
      api = await start(this);
    });
    after(async () => api?.stop());

    describe('named states', () => {
      const changeState = (id: number, fields: Record<string, unknown>) =>
        request(`/api/products/${id}/stock-state-changes`, json(fields));
      const movements = (id: number) => body<Record<string, unknown>[]>(request(`/api/products/${id}/stock-movements`));

      it('moves units between states (200, the product), shows every state of a level, and refuses one unit more (409, nothing moved)', async () => {
        const { id } = await product({ quantityInStock: 5 });
        const moved = await changeState(id, {
          locationId: DEFAULT,
          quantity: 2,
          from: 'available',
          to: 'quality-control',
        });
        expect(moved.status, await moved.clone().text()).to.equal(200);
        expect(await moved.json()).to.include({
          quantityInStock: 5,
          committedQuantity: 0,
          qualityControlQuantity: 2,
          damagedQuantity: 0,
          availableQuantity: 3,
        });
        const [level] = await levels(id);
        expect(level).to.include({ onHand: 5, reserved: 0, committed: 0, qualityControl: 2, damaged: 0, available: 3 });
        const refused = await changeState(id, {
          locationId: DEFAULT,
          quantity: 3,
          from: 'quality-control',
          to: 'damaged',
        });
        const problem = await expectProblem(refused, 409, 'INSUFFICIENT_STOCK');
        expect(problem).to.include({ available: 2, state: 'quality-control' });
        expect(await levels(id)).to.deep.equal([level]);
      });

      it('refuses a malformed state change (400) and one at a location that does not exist (404)', async () => {
        const { id } = await product({ quantityInStock: 5 });
        const same = await changeState(id, { locationId: DEFAULT, quantity: 1, from: 'damaged', to: 'damaged' });
        expect((await expectProblem(same, 400, 'VALIDATION_FAILED')).errors).to.have.property('to');
        const unknown = await changeState(id, { locationId: DEFAULT, quantity: 1, from: 'available', to: 'broken' });
        expect((await expectProblem(unknown, 400, 'VALIDATION_FAILED')).errors).to.have.property('to');
        const none = await changeState(id, { locationId: DEFAULT, quantity: 0, from: 'available', to: 'damaged' });
        expect((await expectProblem(none, 400, 'VALIDATION_FAILED')).errors).to.have.property('quantity');
        await expectProblem(
          await changeState(id, { locationId: 424242, quantity: 1, from: 'available', to: 'damaged' }),
          404,
          'LOCATION_NOT_FOUND',
        );
      });

      it('adjusts damaged units in and writes them off, with reason codes, and refuses one unit more than is damaged', async () => {
        const { id } = await product({ quantityInStock: 5 });
        const added = await request(
          `/api/products/${id}/stock-adjustments`,
          json({ delta: 2, state: 'damaged', reasonCode: 'returned' }),
        );
        expect(await body(added)).to.include({ quantityInStock: 7, damagedQuantity: 2, availableQuantity: 5 });
        const tooMany = await request(`/api/products/${id}/stock-adjustments`, json({ delta: -3, state: 'damaged' }));
        expect(await expectProblem(tooMany, 409, 'INSUFFICIENT_STOCK')).to.include({ available: 2, state: 'damaged' });
        const writtenOff = await request(
          `/api/products/${id}/stock-adjustments`,
          json({ delta: -2, state: 'damaged', reasonCode: 'damaged', reason: 'crushed' }),
        );
        expect(await body(writtenOff)).to.include({ quantityInStock: 5, damagedQuantity: 0 });
        const badCode = await request(`/api/products/${id}/stock-adjustments`, json({ delta: 1, reasonCode: 'whim' }));
        expect((await expectProblem(badCode, 400, 'VALIDATION_FAILED')).errors).to.have.property('reasonCode');
        const ledger = await movements(id);
        expect(
          ledger.map(({ kind, reasonCode, actor, damagedDelta }) => ({ kind, reasonCode, actor, damagedDelta })),
        ).to.deep.equal([
          { kind: 'created', reasonCode: 'created', actor: 'anonymous', damagedDelta: 0 },
          { kind: 'adjusted', reasonCode: 'returned', actor: 'anonymous', damagedDelta: 2 },
          { kind: 'adjusted', reasonCode: 'damaged', actor: 'anonymous', damagedDelta: -2 },
        ]);
      });

      it('takes an API hold’s committed units out at once: it has no order to ship', async () => {
        const { id } = await product({ quantityInStock: 4 });
        const held = await body<ReservationJson>(reserve([{ productId: id, quantity: 3 }]));
        expect(await body(settle(held.id, 'commit'))).to.include({ status: 'committed' });
        expect(await read(id)).to.include({
          quantityInStock: 1,
          reservedQuantity: 0,
          committedQuantity: 0,
          availableQuantity: 1,
        });
        const [, , commit] = await movements(id);
        expect(commit).to.include({ kind: 'committed', quantityDelta: -3, reservedDelta: -3, committedDelta: 0 });
      });
    });

    describe('locations', () => {
      it('starts with the default location, creates others (201, Location) and lists them by priority', async () => {
        const [first] = await body<LocationJson[]>(request('/api/locations'));
        expect(first).to.deep.equal({ id: DEFAULT, code: 'default', name: 'Default', priority: 0 });
        const code = unique('north');
        const created = await request('/api/locations', json({ code, name: '  North  ', priority: -5 }));
        expect(created.status).to.equal(201);
        const north = (await created.json()) as LocationJson;
        expect(north).to.deep.equal({ id: north.id, code, name: 'North', priority: -5 });
        expect(created.headers.get('location')).to.equal(`/api/locations/${north.id}`);
        expect(await body(request(created.headers.get('location')!))).to.deep.equal(north);
        const listed = await body<LocationJson[]>(request('/api/locations'));
        expect(listed[0]).to.deep.equal(north);
        const order = listed.map((l) => [l.priority, l.id]);
        expect(order).to.deep.equal([...order].sort(([p1, i1], [p2, i2]) => p1! - p2! || i1! - i2!));
        expect(await body(request('/api/locations', json({ code: unique('p'), name: 'No priority' })))).to.include({
          priority: 0,
        });
      });

      it('answers 409 LOCATION_CODE_TAKEN for a code in use, and 400 for a bad body, creating nothing', async () => {
        const { code } = await location();
        const taken = await expectProblem(
          await request('/api/locations', json({ code, name: 'Again' })),
          409,
          'LOCATION_CODE_TAKEN',
        );
        expect(taken).to.include({ locationCode: code });
        const before = (await body<LocationJson[]>(request('/api/locations'))).length;
        for (const [bad, field] of [
          [{ code: 'Upper Case', name: 'x' }, 'code'],
          [{ code: 'a'.repeat(51), name: 'x' }, 'code'],
          [{ code: unique('ok'), name: '   ' }, 'name'],
          [{ code: unique('ok'), name: 'x', priority: 1.5 }, 'priority'],
          [{ code: unique('ok'), name: 'x', colour: 'red' }, 'colour'],
          [{ name: 'x' }, 'code'],
        ] as const) {
          const answered = await expectProblem(await request('/api/locations', json(bad)), 400, 'VALIDATION_FAILED');
          expect(answered.errors, JSON.stringify(bad)).to.have.property(field);
        }
        expect(await body<LocationJson[]>(request('/api/locations'))).to.have.length(before);
      });

      it('deletes an empty location (204), but never the default one nor one that keeps stock', async () => {
        const { id, place } = await stocked(0, 3);
        expect(
          await expectProblem(
            await request(`/api/locations/${place.id}`, { method: 'DELETE' }),
            409,
            'LOCATION_NOT_EMPTY',
          ),
        ).to.include({ locationId: place.id });
        expect(
          await expectProblem(
            await request(`/api/locations/${DEFAULT}`, { method: 'DELETE' }),
            409,
            'DEFAULT_LOCATION',
          ),
        ).to.include({ locationId: DEFAULT });
        expect((await adjust(id, -3, place.id)).status).to.equal(200);
        expect((await request(`/api/locations/${place.id}`, { method: 'DELETE' })).status).to.equal(204);
        const gone = await request(`/api/locations/${place.id}`, { method: 'DELETE' });
        expect(await expectProblem(gone, 404, 'LOCATION_NOT_FOUND')).to.include({ locationId: place.id });
        await expectProblem(await request(`/api/locations/${place.id}`), 404, 'LOCATION_NOT_FOUND');
        expect((await body<LocationJson[]>(request('/api/locations'))).map((l) => l.id)).not.to.include(place.id);
      });

      it('answers 400 for a location id that is not one', async () => {
        for (const id of ['abc', '0', '1.5', '2147483648'])
          await expectProblem(await request(`/api/locations/${id}`, { method: 'DELETE' }), 400, 'VALIDATION_FAILED');
      });
    });

    describe('stock levels and adjustments at a location', () => {
      it("shows the product's stock at each location, summing to its totals", async () => {
        const { id, place } = await stocked(10, 20);
        expect(await levels(id)).to.deep.equal([
          {
            locationId: DEFAULT,
            locationCode: 'default',
            onHand: 10,
            reserved: 0,
            committed: 0,
            qualityControl: 0,
            damaged: 0,
            available: 10,
            incoming: 0,
          },
          {
            locationId: place.id,
            locationCode: place.code,
            onHand: 20,
            reserved: 0,
            committed: 0,
            qualityControl: 0,
            damaged: 0,
            available: 20,
            incoming: 0,
          },
        ]);
        expect(await read(id)).to.include({ quantityInStock: 30, reservedQuantity: 0, availableQuantity: 30 });
        await expectProblem(await request('/api/products/2147483647/stock-levels'), 404, 'PRODUCT_NOT_FOUND');
        await expectProblem(await request('/api/products/abc/stock-levels'), 400, 'VALIDATION_FAILED');
      });

      it('adjusts at the location named, never below what is there, and 404s an unknown one', async () => {
        const { id, place } = await stocked(10, 2);
        const short = await expectProblem(await adjust(id, -3, place.id), 409, 'INSUFFICIENT_STOCK');
        expect(short).to.include({ available: 2 });
        const unknown = await expectProblem(await adjust(id, 1, 2_000_000_000), 404, 'LOCATION_NOT_FOUND');
        expect(unknown).to.include({ locationId: 2_000_000_000 });
        await expectProblem(await adjust(id, 1, 0), 400, 'VALIDATION_FAILED');
        expect(await at(id, DEFAULT, place.id)).to.deep.equal([
          [10, 0, 0],
          [2, 0, 0],
        ]);
        const ledger = await body<{ kind: string; locationId: number; quantityDelta: number }[]>(
          request(`/api/products/${id}/stock-movements`),
        );
        expect(ledger.map(({ kind, locationId, quantityDelta }) => [kind, locationId, quantityDelta])).to.deep.equal([
          ['created', DEFAULT, 10],
          ['adjusted', place.id, 2],
        ]);
      });

      it('refuses a PUT that changes quantityInStock once stock is elsewhere (409), and takes one that does not', async () => {
        const { id } = await stocked(10, 5);
        const refused = await request(
          `/api/products/${id}`,
          json({ name: 'Lamp', price: 1, quantityInStock: 12 }, { method: 'PUT' }),
        );
        expect(await expectProblem(refused, 409, 'STOCK_AT_SEVERAL_LOCATIONS')).to.include({
          productId: id,
          adjustments: `/api/products/${id}/stock-adjustments`,
        });
        const renamed = await request(
          `/api/products/${id}`,
          json({ name: 'Lamp', price: 1, quantityInStock: 15 }, { method: 'PUT' }),
        );
        expect(renamed.status).to.equal(200);
        expect(await renamed.json()).to.include({ name: 'Lamp', quantityInStock: 15 });
      });
    });

    describe('split holds', () => {
      it('spreads a line over the locations by priority, and commit takes the units from exactly those', async () => {
        const { id, place } = await stocked(10, 20);
        const response = await reserve([{ productId: id, quantity: 25 }]);
        expect(response.status, await response.clone().text()).to.equal(201);
        const held = (await response.json()) as ReservationJson;
        expect(held.lines).to.deep.equal([
          {
            productId: id,
            quantity: 25,
            allocations: [
              { locationId: DEFAULT, quantity: 10 },
              { locationId: place.id, quantity: 15 },
            ],
            backorderedQuantity: 0,
          },
        ]);
        expect(held.backorderedQuantity).to.equal(0);
        expect(await at(id, DEFAULT, place.id)).to.deep.equal([
          [10, 10, 0],
          [20, 15, 0],
        ]);
        expect(await body(request(`/api/reservations/${held.id}`))).to.deep.equal(held);
        expect(await body(settle(held.id, 'commit'))).to.include({ status: 'committed' });
        expect(await at(id, DEFAULT, place.id)).to.deep.equal([
          [0, 0, 0],
          [5, 0, 0],
        ]);
        expect(await read(id)).to.include({ quantityInStock: 5, reservedQuantity: 0, availableQuantity: 5 });
      });

      it('holds a line that names a location there only, and release gives the units back there', async () => {
        const { id, place } = await stocked(10, 4);
        const short = await expectProblem(
          await reserve([{ productId: id, quantity: 5, locationId: place.id }]),
          409,
          'INSUFFICIENT_STOCK',
        );
        expect(short.shortages).to.deep.equal([{ productId: id, requested: 5, available: 4 }]);
        const held = await body<ReservationJson>(reserve([{ productId: id, quantity: 3, locationId: place.id }]));
        expect(held.lines[0]).to.deep.include({
          locationId: place.id,
          allocations: [{ locationId: place.id, quantity: 3 }],
        });
        expect(await at(id, DEFAULT, place.id)).to.deep.equal([
          [10, 0, 0],
          [4, 3, 0],
        ]);
        expect(await body(settle(held.id, 'release'))).to.include({ status: 'released' });
        expect(await at(id, DEFAULT, place.id)).to.deep.equal([
          [10, 0, 0],
          [4, 0, 0],
        ]);
        const unknown = await reserve([{ productId: id, quantity: 1, locationId: 2_000_000_000 }]);
        expect(await expectProblem(unknown, 404, 'LOCATION_NOT_FOUND')).to.include({ locationId: 2_000_000_000 });
        expect((await read(id)).reservedQuantity).to.equal(0);
      });
    });

    describe('transfers', () => {
      it('sends (201), answers a repeated reference with the first (200), and receives at the destination', async () => {
        const { id, place } = await stocked(0, 10);
        const reference = unique('transfer');
        const sent = await transfer({
          productId: id,
          fromLocationId: place.id,
          toLocationId: DEFAULT,
          quantity: 4,
          reference,
        });
        expect(sent.status, await sent.clone().text()).to.equal(201);
        const first = (await sent.json()) as TransferJson;
        expect(first).to.include({
          status: 'in-transit',
          reference,
          quantity: 4,
          fromLocationId: place.id,
          toLocationId: DEFAULT,
        });
        expect(sent.headers.get('location')).to.equal(`/api/stock-transfers/${first.id}`);
        expect(await at(id, place.id, DEFAULT)).to.deep.equal([
          [6, 0, 0],
          [0, 0, 4],
        ]);
        const again = await transfer({
          productId: id,
          fromLocationId: place.id,
          toLocationId: DEFAULT,
          quantity: 1,
          reference,
        });
        expect(again.status).to.equal(200);
        expect(await again.json()).to.deep.equal(first);
        expect(await body(request(`/api/stock-transfers/${first.id}`))).to.deep.equal(first);

        const received = await body<TransferJson>(
          request(`/api/stock-transfers/${first.id}/receive`, { method: 'POST' }),
        );
        expect(received).to.include({ id: first.id, status: 'received' });
        expect(await at(id, place.id, DEFAULT)).to.deep.equal([
          [6, 0, 0],
          [4, 0, 0],
        ]);
        expect(await body(request(`/api/stock-transfers/${first.id}/receive`, { method: 'POST' }))).to.include({
          status: 'received',
        });
        const late = await request(`/api/stock-transfers/${first.id}/cancel`, { method: 'POST' });
        expect(await expectProblem(late, 409, 'TRANSFER_NOT_IN_TRANSIT')).to.include({ transferStatus: 'received' });
        const ledger = await body<{ kind: string; locationId: number; transferId?: string }[]>(
          request(`/api/products/${id}/stock-movements`),
        );
        expect(ledger.filter((m) => m.transferId === first.id).map((m) => [m.kind, m.locationId])).to.deep.equal([
          ['transfer-sent', place.id],
          ['transfer-received', DEFAULT],
        ]);
      });

      it('cancels back to the source, and refuses a short one (409) and unknown ids (404, 400)', async () => {
        const { id, place } = await stocked(5, 0);
        const short = await transfer({ productId: id, fromLocationId: DEFAULT, toLocationId: place.id, quantity: 6 });
        expect(await expectProblem(short, 409, 'INSUFFICIENT_STOCK')).to.include({ available: 5 });
        const sent = await body<TransferJson>(
          transfer({ productId: id, fromLocationId: DEFAULT, toLocationId: place.id, quantity: 5 }),
        );
        expect(await read(id)).to.include({ quantityInStock: 0, availableQuantity: 0, stockState: 'out' });
        expect(await body(request(`/api/stock-transfers/${sent.id}/cancel`, { method: 'POST' }))).to.include({
          status: 'cancelled',
        });
        expect(await at(id, DEFAULT, place.id)).to.deep.equal([
          [5, 0, 0],
          [0, 0, 0],
        ]);
        await expectProblem(
          await request(`/api/stock-transfers/${sent.id}/receive`, { method: 'POST' }),
          409,
          'TRANSFER_NOT_IN_TRANSIT',
        );
        await expectProblem(await request(`/api/stock-transfers/${randomUUID()}`), 404, 'TRANSFER_NOT_FOUND');
        await expectProblem(
          await request('/api/stock-transfers/abc/receive', { method: 'POST' }),
          400,
          'VALIDATION_FAILED',
        );
        const toNowhere = await transfer({
          productId: id,
          fromLocationId: DEFAULT,
          toLocationId: 2_000_000_000,
          quantity: 1,
        });
        await expectProblem(toNowhere, 404, 'LOCATION_NOT_FOUND');
        const same = await transfer({ productId: id, fromLocationId: DEFAULT, toLocationId: DEFAULT, quantity: 1 });
        expect((await expectProblem(same, 400, 'VALIDATION_FAILED')).errors).to.have.property('toLocationId');
        expect((await read(id)).quantityInStock).to.equal(5);
      });

      it('lists transfers in transit first, then newest first, by product and status, a page at a time', async () => {
        const { id, place } = await stocked(0, 10);
        const send = async () =>
          body<TransferJson>(transfer({ productId: id, fromLocationId: place.id, toLocationId: DEFAULT, quantity: 1 }));
        const sent: TransferJson[] = [];
        for (let i = 0; i < 4; i++) sent.push(await send());
        const end = (transferId: string, step: string) =>
          body<TransferJson>(request(`/api/stock-transfers/${transferId}/${step}`, { method: 'POST' }));
        const received = await end(sent[0]!.id, 'receive');
        const cancelled = await end(sent[2]!.id, 'cancel');
        const list = (query: string) => request(`/api/stock-transfers?${query}`);

        const all = await body<TransferJson[]>(list(`productId=${id}`));
        expect(all.map((t) => t.id)).to.have.members(sent.map((t) => t.id));
        expect(all.map((t) => t.status).slice(0, 2)).to.deep.equal(['in-transit', 'in-transit']);
        expect(all.map((t) => t.status).slice(2)).to.have.members(['cancelled', 'received']);
        // Newest first within each: in transit, then ended.
        for (const [earlier, later] of [all.slice(0, 2), all.slice(2)] as [TransferJson, TransferJson][])
          expect(Date.parse(earlier.createdAt)).to.be.at.least(Date.parse(later.createdAt));
        expect(all.find((t) => t.id === received.id)).to.deep.equal(received);

        // Followed page by page through the Link header, one at a time: the same list.
        const paged: TransferJson[] = [];
        let next: string | undefined = `/api/stock-transfers?productId=${id}&limit=1`;
        while (next) {
          const response = await request(next);
          expect(response.status).to.equal(200);
          paged.push(...((await response.json()) as TransferJson[]));
          const link = response.headers.get('link');
          if (link) expect(link).to.match(/^<\/api\/stock-transfers\?limit=1&productId=\d+&after=[^>]+>; rel="next"$/);
          next = link?.slice(1, link.indexOf('>'));
        }
        expect(paged).to.deep.equal(all);

        expect(await body(list(`productId=${id}&status=cancelled`))).to.deep.equal([cancelled]);
        const inTransit = await body<TransferJson[]>(list(`status=in-transit&productId=${id}`));
        expect(inTransit.map((t) => t.id)).to.deep.equal(all.slice(0, 2).map((t) => t.id));
        const everyone = await list('limit=1');
        expect(everyone.status).to.equal(200);
        expect(await everyone.json()).to.have.length(1);
        expect(everyone.headers.get('link')).to.match(/^<\/api\/stock-transfers\?limit=1&after=[^>]+>; rel="next"$/);
      });

      it('refuses a bad query parameter with a 400 naming it', async () => {
        const bad: [string, string][] = [
          ['status=shipped', 'status'],
          ['status=in_transit', 'status'],
          ['limit=0', 'limit'],
          ['limit=1001', 'limit'],
          ['productId=abc', 'productId'],
          ['after=42', 'after'],
          ['status=received&status=cancelled', 'status'],
          ['sort=newest', 'sort'],
        ];
        for (const [query, field] of bad) {
          const problem = await expectProblem(await request(`/api/stock-transfers?${query}`), 400, 'VALIDATION_FAILED');
          expect(problem.errors, query).to.have.property(field);
        }
      });
    });

    describe('backorders', () => {
      it('holds beyond stock within the limit, refuses its commit until stock arrives, then commits', async () => {
        const { id } = await product({ quantityInStock: 2, backorderLimit: 5 });
        await expectProblem(await reserve([{ productId: id, quantity: 3 }]), 409, 'INSUFFICIENT_STOCK');
        await expectProblem(
          await reserve([{ productId: id, quantity: 8 }], { allowBackorder: true }),
          409,
          'INSUFFICIENT_STOCK',
        );
        const response = await reserve([{ productId: id, quantity: 4 }], { allowBackorder: true });
        expect(response.status, await response.clone().text()).to.equal(201);
        const held = (await response.json()) as ReservationJson;
        expect(held.lines).to.deep.equal([
          { productId: id, quantity: 4, allocations: [{ locationId: DEFAULT, quantity: 2 }], backorderedQuantity: 2 },
        ]);
        expect(held.backorderedQuantity).to.equal(2);
        expect(await read(id)).to.include({
          reservedQuantity: 2,
          backorderedQuantity: 2,
          availableQuantity: -2,
          stockState: 'out',
        });

        const refused = await expectProblem(await settle(held.id, 'commit'), 409, 'BACKORDER_NOT_FILLED');
        expect(refused).to.include({ productId: id, backorderedQuantity: 2 });
        expect(await body(request(`/api/reservations/${held.id}`))).to.include({ status: 'held' });

        expect(await body(adjust(id, 3))).to.include({
          quantityInStock: 5,
          reservedQuantity: 4,
          backorderedQuantity: 0,
          availableQuantity: 1,
        });
        const filled = await body<ReservationJson>(request(`/api/reservations/${held.id}`));
        expect(filled.backorderedQuantity).to.equal(0);
        expect(filled.lines[0]!.allocations).to.deep.equal([{ locationId: DEFAULT, quantity: 4 }]);
        expect(await body(settle(held.id, 'commit'))).to.include({ status: 'committed' });
        expect(await read(id)).to.include({ quantityInStock: 1, reservedQuantity: 0, backorderedQuantity: 0 });
        const kinds = (await body<{ kind: string }[]>(request(`/api/products/${id}/stock-movements`))).map(
          (m) => m.kind,
        );
        expect(kinds).to.deep.equal(['created', 'reserved', 'adjusted', 'backorder-filled', 'committed']);
      });

      it('keeps the settings a PUT leaves out, and takes those it gives', async () => {
        const { id } = await product({ quantityInStock: 1, backorderLimit: 3, lowStockThreshold: 2 });
        const put = (fields: Record<string, unknown>) =>
          body<ProductJson>(
            request(
              `/api/products/${id}`,
              json({ name: 'Lamp', price: 1, quantityInStock: 1, ...fields }, { method: 'PUT' }),
            ),
          );
        expect(await put({})).to.include({ backorderLimit: 3, lowStockThreshold: 2, stockState: 'low' });
        expect(await put({ backorderLimit: 0, lowStockThreshold: null })).to.include({
          backorderLimit: 0,
          lowStockThreshold: 2,
        });
        const bad = await request(
          `/api/products/${id}`,
          json({ name: 'Lamp', price: 1, backorderLimit: -1 }, { method: 'PUT' }),
        );
        expect((await expectProblem(bad, 400, 'VALIDATION_FAILED')).errors).to.have.property('backorderLimit');
      });
    });

    describe('stock states', () => {
      it('lists the products in a state, streamed or paged, and refuses a state it does not know', async () => {
        const low = await product({ quantityInStock: 3, lowStockThreshold: 5 });
        const out = await product({ quantityInStock: 0 });
        const fine = await product({ quantityInStock: 9, lowStockThreshold: 5 });
        expect([low.stockState, out.stockState, fine.stockState]).to.deep.equal(['low', 'out', 'in']);
        const ids = async (query: string) =>
          (await body<ProductJson[]>(request(`/api/products?${query}`))).map((p) => p.id);
        for (const query of ['stockState=low', 'stockState=low&limit=1000']) {
          const listed = await ids(query);
          expect(listed, query).to.include(low.id).and.not.include(out.id).and.not.include(fine.id);
        }
        expect(await ids('stockState=out'))
          .to.include(out.id)
          .and.not.include(low.id);
        expect(await ids('stockState=in&after=0'))
          .to.include(fine.id)
          .and.not.include(low.id);
        expect(
          (await expectProblem(await request('/api/products?stockState=empty'), 400, 'VALIDATION_FAILED')).errors,
        ).to.have.property('stockState');
        expect(
          (await expectProblem(await request(`/api/products?ids=${low.id}&stockState=low`), 400, 'VALIDATION_FAILED'))
            .errors,
        ).to.have.property('ids');
      });
    });

    it('lets a client that knows nothing of locations work as before, at the default location', async () => {
      const { id } = await product({ quantityInStock: 4 });
      expect(await body(adjust(id, 2))).to.include({ quantityInStock: 6 });
      const held = await body<ReservationJson>(reserve([{ productId: id, quantity: 5 }]));
      expect(await body(settle(held.id, 'commit'))).to.include({ status: 'committed' });
      expect(await read(id)).to.include({ quantityInStock: 1, reservedQuantity: 0, availableQuantity: 1 });
      expect(await levels(id)).to.deep.equal([
        {
          locationId: DEFAULT,
          locationCode: 'default',
          onHand: 1,
          reserved: 0,
          committed: 0,
          qualityControl: 0,
          damaged: 0,
          available: 1,
          incoming: 0,
        },
      ]);
    });
  });
}
