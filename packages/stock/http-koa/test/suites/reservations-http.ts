import { aProductBody } from '@stock/domain/testing';
import { expect } from 'chai';
import { type ApiUnderTest, json, type StartApi } from '../support/api-under-test';

interface ProductJson {
  id: number;
  quantityInStock: number;
  reservedQuantity: number;
  availableQuantity: number;
}

interface ReservationJson {
  id: string;
  reference: string;
  status: string;
  lines: { productId: number; quantity: number }[];
  expiresAt: string;
}

export function reservationsHttpSuite(backend: string, start: StartApi): void {
  describe(`Reservations and the ledger over HTTP on ${backend}`, function () {
    this.timeout(60_000);
    let api: ApiUnderTest;
    const request = (path: string, init?: RequestInit) => api.request(path, init);
    const product = async (quantityInStock: number) =>
      (await (await request('/api/products', json(aProductBody({ quantityInStock })))).json()) as ProductJson;
    const read = async (id: number) => (await (await request(`/api/products/${id}`)).json()) as ProductJson;
    const reserve = (body: unknown, headers: Record<string, string> = {}) =>
      request('/api/reservations', json(body, { headers }));
    const reference = () => `order-${Math.random().toString(36).slice(2)}`;

    before(async function () {
      api = await start(this);
    });
    after(async () => api?.stop());

    it('holds every line, answers 201 with the reservation and where it lives, and shows the hold on the products', async () => {
      const [a, b] = [await product(5), await product(2)];
      const response = await reserve({
        reference: 'order-1',
        lines: [
          { productId: a.id, quantity: 2 },
          { productId: b.id, quantity: 1 },
          { productId: a.id, quantity: 1 },
        ],
        ttlSeconds: 60,
      });
      expect(response.status).to.equal(201);
      const reservation = (await response.json()) as ReservationJson;
      expect(response.headers.get('location')).to.equal(`/api/reservations/${reservation.id}`);
      expect(reservation).to.include({ reference: 'order-1', status: 'held' });
      // Held where the only location, the default one, has the units; nothing backordered.
      expect(reservation.lines).to.deep.equal([
        { productId: a.id, quantity: 3, allocations: [{ locationId: 1, quantity: 3 }], backorderedQuantity: 0 },
        { productId: b.id, quantity: 1, allocations: [{ locationId: 1, quantity: 1 }], backorderedQuantity: 0 },
      ]);
      expect(await read(a.id)).to.include({ quantityInStock: 5, reservedQuantity: 3, availableQuantity: 2 });
      expect(await (await request(`/api/reservations/${reservation.id}`)).json()).to.deep.equal(reservation);
      const again = await reserve({ reference: 'order-1', lines: [{ productId: a.id, quantity: 2 }] });
      expect(again.status).to.equal(200);
      expect(await again.json()).to.deep.equal(reservation);
      expect((await read(a.id)).reservedQuantity).to.equal(3);
    });

    it('answers 409 INSUFFICIENT_STOCK with every shortage, and 404 UNKNOWN_PRODUCTS, holding nothing', async () => {
      const [a, b] = [await product(5), await product(1)];
      const short = await reserve({
        reference: reference(),
        lines: [
          { productId: a.id, quantity: 1 },
          { productId: b.id, quantity: 3 },
        ],
      });
      expect(short.status).to.equal(409);
      expect(await short.json())
        .to.include({ code: 'INSUFFICIENT_STOCK' })
        .and.deep.include({ shortages: [{ productId: b.id, requested: 3, available: 1 }] });
      const unknown = await reserve({
        reference: reference(),
        lines: [
          { productId: a.id, quantity: 1 },
          { productId: 2147483000, quantity: 1 },
        ],
      });
      expect(unknown.status).to.equal(404);
      expect(await unknown.json())
        .to.include({ code: 'UNKNOWN_PRODUCTS' })
        .and.deep.include({ productIds: [2147483000] });
      expect((await read(a.id)).reservedQuantity).to.equal(0);
    });

    for (const [what, body, field] of [
      ['no lines', { reference: 'r', lines: [] }, 'lines'],
      ['a blank reference', { reference: '  ', lines: [{ productId: 1, quantity: 1 }] }, 'reference'],
      ['a line with a quantity of 0', { reference: 'r', lines: [{ productId: 1, quantity: 0 }] }, 'lines'],
      ['a line without its product', { reference: 'r', lines: [{ quantity: 1 }] }, 'lines[0].productId'],
      [
        'a line with an unknown property',
        { reference: 'r', lines: [{ productId: 1, quantity: 1, colour: 'red' }] },
        'lines[0].colour',
      ],
      [
        'a time to live of a year',
        { reference: 'r', lines: [{ productId: 1, quantity: 1 }], ttlSeconds: 31_536_000 },
        'ttlSeconds',
      ],
      ['an unknown property', { reference: 'r', lines: [{ productId: 1, quantity: 1 }], customer: 'x' }, 'customer'],
    ] as const) {
      it(`answers 400 naming "${field}" for ${what}`, async () => {
        const response = await reserve(body);
        expect(response.status).to.equal(400);
        expect(await response.json()).to.have.nested.property(
          `errors.${field.replace(/\[(\d+)\]/g, '\\[$1\\]').replace(/\./g, '\\.')}`,
        );
      });
    }

    it('commits once: the stock drops with the hold; a repeat is harmless and a release after it is a 409', async () => {
      const a = await product(10);
      const { id } = (await (
        await reserve({ reference: reference(), lines: [{ productId: a.id, quantity: 4 }] })
      ).json()) as ReservationJson;
      const committed = await request(`/api/reservations/${id}/commit`, { method: 'POST' });
      expect(committed.status).to.equal(200);
      expect(await committed.json()).to.include({ status: 'committed' });
      expect(await read(a.id)).to.include({ quantityInStock: 6, reservedQuantity: 0, availableQuantity: 6 });
      expect((await request(`/api/reservations/${id}/commit`, { method: 'POST' })).status).to.equal(200);
      const refused = await request(`/api/reservations/${id}/release`, { method: 'POST' });
      expect(refused.status).to.equal(409);
      expect(await refused.json()).to.include({ code: 'RESERVATION_NOT_HELD', reservationStatus: 'committed' });
    });

    it('releases: the held stock is available again, and a commit after it is a 409', async () => {
      const a = await product(10);
      const { id } = (await (
        await reserve({ reference: reference(), lines: [{ productId: a.id, quantity: 4 }] })
      ).json()) as ReservationJson;
      expect(await (await request(`/api/reservations/${id}/release`, { method: 'POST' })).json()).to.include({
        status: 'released',
      });
      expect(await read(a.id)).to.include({ quantityInStock: 10, reservedQuantity: 0 });
      expect((await request(`/api/reservations/${id}/commit`, { method: 'POST' })).status).to.equal(409);
    });

    it('answers 404 for an unknown reservation and 400 for an id that is not one', async () => {
      expect(await (await request('/api/reservations/3f1c2b7e-9a40-4d1e-8f7a-2c1d0b9e6a55')).json()).to.include({
        status: 404,
        code: 'RESERVATION_NOT_FOUND',
      });
      expect(await (await request('/api/reservations/42/commit', { method: 'POST' })).json()).to.include({
        status: 400,
        code: 'VALIDATION_FAILED',
      });
    });

    it('holds exactly the stock when 200 reservations of one race for 50', async () => {
      const a = await product(50);
      const statuses = await Promise.all(
        Array.from(
          { length: 200 },
          async () => (await reserve({ reference: reference(), lines: [{ productId: a.id, quantity: 1 }] })).status,
        ),
      );
      expect(statuses.filter((s) => s === 201)).to.have.length(50);
      expect(statuses.filter((s) => s === 409)).to.have.length(150);
      expect(await read(a.id)).to.include({ reservedQuantity: 50, availableQuantity: 0 });
    });

    it('reserves once per Idempotency-Key', async () => {
      const a = await product(10);
      const body = { reference: reference(), lines: [{ productId: a.id, quantity: 2 }] };
      const headers = { 'Idempotency-Key': `k-${Math.random()}` };
      const first = await reserve(body, headers);
      const repeat = await reserve(body, headers);
      expect([first.status, repeat.status]).to.deep.equal([201, 201]);
      expect(repeat.headers.get('idempotent-replayed')).to.equal('true');
      expect(await repeat.json()).to.deep.equal(await first.json());
      expect((await reserve({ ...body, lines: [{ productId: a.id, quantity: 3 }] }, headers)).status).to.equal(422);
    });

    it('keeps adjustments, PUT and DELETE from taking what is held', async () => {
      const a = await product(5);
      await reserve({ reference: reference(), lines: [{ productId: a.id, quantity: 3 }] });
      const adjusted = await request(`/api/products/${a.id}/stock-adjustments`, json({ delta: -3 }));
      expect(adjusted.status).to.equal(409);
      expect(await adjusted.json()).to.include({ code: 'INSUFFICIENT_STOCK', available: 2 });
      const put = await request(`/api/products/${a.id}`, json(aProductBody({ quantityInStock: 2 }), { method: 'PUT' }));
      expect(put.status).to.equal(409);
      expect(await put.json(), 'what could be taken out: the stock no reservation holds').to.include({
        code: 'INSUFFICIENT_STOCK',
        available: 2,
      });
      expect(await (await request(`/api/products/${a.id}`, { method: 'DELETE' })).json()).to.include({
        status: 409,
        code: 'PRODUCT_RESERVED',
      });
    });

    it('pages the ledger, whose sums are the product’s quantities, each movement saying what caused it', async () => {
      const a = await product(10);
      await request(
        `/api/products/${a.id}/stock-adjustments`,
        json({ delta: -2, reason: 'broken' }, { headers: { 'X-Request-Id': 'adjust-1' } }),
      );
      const { id } = (await (
        await reserve({ reference: reference(), lines: [{ productId: a.id, quantity: 3 }] })
      ).json()) as ReservationJson;
      await request(`/api/reservations/${id}/commit`, { method: 'POST' });
      const first = await request(`/api/products/${a.id}/stock-movements?limit=2`);
      expect(first.headers.get('link')).to.match(
        new RegExp(`^</api/products/${a.id}/stock-movements\\?limit=2&after=\\d+>; rel="next"$`),
      );
      const movements = [
        ...((await first.json()) as Record<string, unknown>[]),
        ...((await (
          await request(
            `/api/products/${a.id}/stock-movements?after=${/after=(\d+)/.exec(first.headers.get('link')!)![1]}`,
          )
        ).json()) as Record<string, unknown>[]),
      ];
      expect(movements.map((m) => m.kind)).to.deep.equal(['created', 'adjusted', 'reserved', 'committed']);
      expect(movements[1]).to.include({ quantityDelta: -2, reason: 'broken', requestId: 'adjust-1' });
      expect(movements[3]).to.include({ quantityDelta: -3, reservedDelta: -3, reservationId: id });
      const current = await read(a.id);
      expect(movements.reduce((sum, m) => sum + Number(m.quantityDelta), 0)).to.equal(current.quantityInStock);
      expect(movements.reduce((sum, m) => sum + Number(m.reservedDelta), 0)).to.equal(current.reservedQuantity);
      expect((await request('/api/products/2147483000/stock-movements')).status).to.equal(404);
    });

    it('answers several products by id in one read, in id order, leaving out ids nobody has', async () => {
      const [a, b] = [await product(1), await product(2)];
      const response = await request(`/api/products?ids=${b.id},2147483000,${a.id}`);
      expect(((await response.json()) as ProductJson[]).map((p) => p.id)).to.deep.equal([a.id, b.id]);
      for (const query of [
        'ids=',
        'ids=1,x',
        `ids=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`,
        'ids=1&limit=5',
      ]) {
        expect((await request(`/api/products?${query}`)).status, query).to.equal(400);
      }
    });
  });
}
