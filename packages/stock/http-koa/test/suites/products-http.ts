import { rawHttpRequest } from '@platform/test-kit';
import { aProductBody } from '@stock/domain/testing';
import { expect } from 'chai';
import { type ApiUnderTest, expectProblem, json, type StartApi } from '../support/api-under-test';

const PROBLEM = 'application/problem+json';
/** What a product created by a client that knows nothing of backorders and low-stock alerts shows of them. */
/** A product created without stock settings or a SKU answers these. */
const NO_STOCK_SETTINGS = { sku: null, backorderLimit: 0, backorderedQuantity: 0, lowStockThreshold: 0 };
/** A product nothing set aside beside holds: no paid order waits on it, nothing in quality control or damaged. */
const NOTHING_SET_ASIDE = { committedQuantity: 0, qualityControlQuantity: 0, damagedQuantity: 0 };

async function expectFieldErrors(response: Response, fields: string[]) {
  const problem = await expectProblem(response, 400, 'VALIDATION_FAILED');
  expect(problem.errors).to.have.all.keys(fields);
  for (const messages of Object.values(problem.errors as Record<string, string[]>)) {
    expect(messages).to.be.an('array').that.is.not.empty;
  }
  return problem.errors as Record<string, string[]>;
}

export function productsHttpSuite(backend: string, start: StartApi): void {
  describe(`Products HTTP API on ${backend}`, () => {
    let api: ApiUnderTest;
    const request = (path: string, init?: RequestInit) => api.request(path, init);
    const create = async (body: Record<string, unknown> = aProductBody()) => {
      const response = await request('/api/products', json(body));
      expect(response.status, await response.clone().text()).to.equal(201);
      return (await response.json()) as Record<string, unknown> & { id: number };
    };

    before(async function () {
      api = await start(this);
    });
    after(async () => api?.stop());

    describe('POST /api/products', () => {
      it('answers 201 with the product, its id and a Location to read it back', async () => {
        const response = await request(
          '/api/products',
          json({ name: '  Desk lamp ', description: 'Warm light', price: 39.9, quantityInStock: 12 }),
        );
        expect(response.status).to.equal(201);
        const body = (await response.json()) as { id: number };
        expect(body).to.deep.equal({
          id: body.id,
          name: 'Desk lamp',
          description: 'Warm light',
          price: 39.9,
          quantityInStock: 12,
          reservedQuantity: 0,
          ...NOTHING_SET_ASIDE,
          availableQuantity: 12,
          ...NO_STOCK_SETTINGS,
          stockState: 'in',
        });
        expect(response.headers.get('location')).to.equal(`/api/products/${body.id}`);
        const readBack = await request(response.headers.get('location')!);
        expect(await readBack.json()).to.deep.equal(body);
      });

      it('logs the creation on the one line of its request, at info level, with the new id', async () => {
        const { id } = await create();
        const lines = api.logs.filter((l) => l.productId === id);
        expect(lines).to.have.length(1);
        expect(lines[0]).to.include({
          level: 'info',
          message: 'request',
          event: 'product created',
          productId: id,
          method: 'POST',
          status: 201,
        });
      });

      it('keeps the price exact', async () => {
        for (const price of [1234567890.12, 0.1, 0.07, 19.99, 9999999999999.99, 0]) {
          const { id } = await create(aProductBody({ price }));
          expect(((await (await request(`/api/products/${id}`)).json()) as { price: number }).price).to.equal(price);
        }
        const raw = await (await request('/api/products', json(aProductBody({ price: 1234567890.12 })))).text();
        expect(raw).to.contain('"price":1234567890.12');
      });

      it('matches property names case-insensitively, as .NET clients send them', async () => {
        const product = await create({ Name: 'Pascal', Description: 'Cased', Price: 5.5, QuantityInStock: 2, Id: 0 });
        expect(product).to.include({ name: 'Pascal', description: 'Cased', price: 5.5, quantityInStock: 2 });
      });

      it('fills the optional fields: description "" and quantityInStock 0, also when null', async () => {
        expect(await create({ name: 'Bare', price: 1 })).to.include({ description: '', quantityInStock: 0 });
        expect(
          await create({ name: 'Nulls', price: 1, description: null, quantityInStock: null, id: null }),
        ).to.include({ description: '', quantityInStock: 0 });
      });

      it('accepts the largest quantity and the longest name and description', async () => {
        const product = await create(
          aProductBody({ name: 'n'.repeat(200), description: 'd'.repeat(2000), quantityInStock: 2147483647 }),
        );
        expect(product.quantityInStock).to.equal(2147483647);
        expect(product.name).to.have.length(200);
      });

      it('names every invalid field at once, and stores nothing', async () => {
        const before = (await (await request('/api/products')).json()) as unknown[];
        const errors = await expectFieldErrors(
          await request('/api/products', json({ name: ' ', description: 7, price: -1, quantityInStock: 1.5 })),
          ['name', 'description', 'price', 'quantityInStock'],
        );
        expect(errors.name![0]).to.match(/required|blank/);
        expect(await (await request('/api/products')).json()).to.have.length(before.length);
      });

      const invalid: [string, Record<string, unknown>, string][] = [
        ['a missing name', { price: 1 }, 'name'],
        ['a null name', { name: null, price: 1 }, 'name'],
        ['a numeric name', { name: 42, price: 1 }, 'name'],
        ['a name over 200 characters', { name: 'x'.repeat(201), price: 1 }, 'name'],
        ['a description over 2000 characters', { name: 'A', description: 'x'.repeat(2001), price: 1 }, 'description'],
        ['a missing price', { name: 'A' }, 'price'],
        ['a price given as a string', { name: 'A', price: '10.00' }, 'price'],
        ['a negative price', { name: 'A', price: -0.01 }, 'price'],
        ['a price with three decimals', { name: 'A', price: 1.005 }, 'price'],
        ['a price past numeric(15,2)', { name: 'A', price: 1e14 }, 'price'],
        ['a price in scientific notation that is too small', { name: 'A', price: 1e-7 }, 'price'],
        ['a fractional quantity', { name: 'A', price: 1, quantityInStock: 2.5 }, 'quantityInStock'],
        ['a negative quantity', { name: 'A', price: 1, quantityInStock: -1 }, 'quantityInStock'],
        ['a quantity past int32', { name: 'A', price: 1, quantityInStock: 2147483648 }, 'quantityInStock'],
        ['a quantity given as a string', { name: 'A', price: 1, quantityInStock: '5' }, 'quantityInStock'],
        ['a boolean quantity', { name: 'A', price: 1, quantityInStock: true }, 'quantityInStock'],
        ['an id other than 0', { id: 5, name: 'A', price: 1 }, 'id'],
        ['a fractional id', { id: 0.5, name: 'A', price: 1 }, 'id'],
        ['an unknown property', { name: 'A', price: 1, colour: 'red' }, 'colour'],
        ['a property given twice in different cases', { name: 'A', NAME: 'B', price: 1 }, 'name'],
      ];
      for (const [what, body, field] of invalid) {
        it(`answers 400 naming "${field}" for ${what}`, async () => {
          await expectFieldErrors(await request('/api/products', json(body)), [field]);
        });
      }

      it('answers 400 for malformed JSON and for a body that is not an object', async () => {
        await expectProblem(await request('/api/products', json('{"name": "A", ')), 400, 'MALFORMED_JSON');
        await expectProblem(await request('/api/products', json('"just a string"')), 400, 'MALFORMED_JSON');
        await expectProblem(
          await request('/api/products', json('[{"name":"A","price":1}]')),
          400,
          'BODY_NOT_AN_OBJECT',
        );
        await expectProblem(await request('/api/products', json('null')), 400, 'MALFORMED_JSON');
      });

      it('answers 400 naming __proto__ as the unknown property it is, and pollutes nothing', async () => {
        const errors = await expectFieldErrors(
          await request('/api/products', json('{"__proto__": {"x": 1}, "name": "A", "price": 1}')),
          ['__proto__'],
        );
        expect(Object.getOwnPropertyDescriptor(errors, '__proto__')?.value).to.deep.equal([
          'is not a property of a product',
        ]);
        await expectFieldErrors(
          await request('/api/products', json('{"constructor": {"prototype": {"x": 1}}, "name": "A", "price": 1}')),
          ['constructor'],
        );
        expect(({} as Record<string, unknown>).x).to.equal(undefined);
      });

      it('answers 400 naming a property given twice, rather than keeping the last', async () => {
        const errors = await expectFieldErrors(
          await request('/api/products', json('{"name":"A","price":1,"price":2}')),
          ['price'],
        );
        expect(errors.price).to.deep.equal(['is given more than once']);
        await expectFieldErrors(await request('/api/products', json('{"name":"A","price":1,"\\u006eame":"B"}')), [
          'name',
        ]);
        const { id } = await create();
        await expectFieldErrors(
          await request(`/api/products/${id}/stock-adjustments`, json('{"delta":-1,"delta":5}')),
          ['delta'],
        );
      });

      it('answers 415 for a body declared in a charset other than UTF-8, and 400 for bytes that are not UTF-8', async () => {
        for (const charset of ['latin1', 'utf-16']) {
          await expectProblem(
            await request(
              '/api/products',
              json(aProductBody(), { headers: { 'content-type': `application/json; charset=${charset}` } }),
            ),
            415,
            'UNSUPPORTED_MEDIA_TYPE',
          );
        }
        const latin1 = Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('","price":1}')]);
        const problem = await expectProblem(
          await request('/api/products', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: latin1,
          }),
          400,
          'MALFORMED_JSON',
        );
        expect(problem.detail).to.match(/UTF-8/);
      });

      it('answers BODY_REQUIRED for an empty chunked body', async () => {
        const empty = new ReadableStream({ start: (controller) => controller.close() });
        await expectProblem(
          await request('/api/products', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: empty,
            duplex: 'half',
          }),
          400,
          'BODY_REQUIRED',
        );
        await expectProblem(
          await api.raw(
            'POST',
            '/api/products',
            { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
            '0\r\n\r\n',
          ),
          400,
          'BODY_REQUIRED',
        );
      });

      it('reads a content coding named in any case, and refuses a transfer coding other than chunked', async () => {
        const { gzipSync, deflateSync } = await import('node:zlib');
        for (const [coding, encode] of [
          ['GZIP', gzipSync],
          ['Deflate', deflateSync],
        ] as const) {
          const response = await request('/api/products', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-encoding': coding },
            body: encode(JSON.stringify(aProductBody())),
          });
          expect(response.status, coding).to.equal(201);
        }
        const gzipped = gzipSync(JSON.stringify(aProductBody()));
        const chunk = [`${gzipped.length.toString(16)}\r\n`, gzipped, '\r\n0\r\n\r\n'];
        await expectProblem(
          await api.raw(
            'POST',
            '/api/products',
            { 'Content-Type': 'application/json', 'Transfer-Encoding': 'gzip, chunked' },
            ...chunk,
          ),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
        expect(
          (
            await api.raw(
              'POST',
              '/api/products',
              { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Transfer-Encoding': 'chunked' },
              ...chunk,
            )
          ).status,
        ).to.equal(201);
      });

      it('answers 413 for a gzip body that decodes past 64 KiB', async () => {
        const { gzipSync } = await import('node:zlib');
        const bomb = gzipSync(JSON.stringify({ name: 'A', price: 1, description: 'x'.repeat(10 * 1024 * 1024) }));
        await expectProblem(
          await request('/api/products', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
            body: bomb,
          }),
          413,
          'PAYLOAD_TOO_LARGE',
        );
      });

      it('answers 400, not 500, for a body whose gzip encoding is corrupt', async () => {
        await expectProblem(
          await request('/api/products', json('this is not gzip', { headers: { 'content-encoding': 'gzip' } })),
          400,
          'MALFORMED_JSON',
        );
        await expectProblem(
          await request('/api/products', json('{}', { headers: { 'content-encoding': 'zstd-nonsense' } })),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
      });

      it('reads a gzip-encoded body', async () => {
        const { gzipSync } = await import('node:zlib');
        const response = await request('/api/products', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          body: gzipSync(JSON.stringify(aProductBody())),
        });
        expect(response.status).to.equal(201);
      });

      it('answers 400 for a NUL character, which PostgreSQL could not store', async () => {
        await expectFieldErrors(await request('/api/products', json({ name: 'A\u0000B', price: 1 })), ['name']);
        await expectFieldErrors(await request('/api/products', json({ name: 'A', description: '\u0000', price: 1 })), [
          'description',
        ]);
      });

      it('answers 400 naming the field for text that is not well-formed Unicode, and stores nothing', async () => {
        const before = ((await (await request('/api/products')).json()) as unknown[]).length;
        // JSON.stringify escapes a lone surrogate as \ud800, which JSON.parse turns back into one.
        await expectFieldErrors(await request('/api/products', json({ name: 'a\ud800b', price: 1 })), ['name']);
        await expectFieldErrors(await request('/api/products', json({ name: 'A', description: 'x\udfff', price: 1 })), [
          'description',
        ]);
        const { id } = await create();
        await expectFieldErrors(
          await request(`/api/products/${id}`, json({ name: '\ud83d', price: 1 }, { method: 'PUT' })),
          ['name'],
        );
        await expectFieldErrors(
          await request(`/api/products/${id}/stock-adjustments`, json({ delta: 1, reason: 'r\ud800' })),
          ['reason'],
        );
        expect(await (await request('/api/products')).json()).to.have.length(before + 1);
        expect(await create(aProductBody({ name: 'Rocket \ud83d\ude80' }))).to.include({ name: 'Rocket 🚀' });
      });

      it('answers 415 for JSON-like media types the parser does not read', async () => {
        await expectProblem(
          await request(
            '/api/products',
            json(aProductBody(), { headers: { 'content-type': 'application/merge-patch+json' } }),
          ),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
      });

      it('answers 400 when there is no body at all', async () => {
        await expectProblem(await request('/api/products', { method: 'POST' }), 400, 'BODY_REQUIRED');
      });

      it('answers 415 for a body that is not JSON', async () => {
        await expectProblem(
          await request('/api/products', {
            method: 'POST',
            headers: { 'content-type': 'text/plain' },
            body: '{"name":"A","price":1}',
          }),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
        await expectProblem(
          await request('/api/products', { method: 'POST', body: new URLSearchParams({ name: 'A' }) }),
          415,
        );
      });

      it('answers 413 for a body over 64 KiB', async () => {
        await expectProblem(
          await request('/api/products', json({ name: 'A', price: 1, description: 'x'.repeat(70 * 1024) })),
          413,
          'PAYLOAD_TOO_LARGE',
        );
      });

      it('accepts a JSON content type with a charset', async () => {
        const response = await request(
          '/api/products',
          json(aProductBody(), { headers: { 'content-type': 'application/json; charset=utf-8' } }),
        );
        expect(response.status).to.equal(201);
      });
    });

    describe('GET /api/products', () => {
      let ids: number[];
      before(async () => {
        ids = [];
        for (let i = 0; i < 5; i++) ids.push((await create()).id);
      });

      it('answers every product as a JSON array ordered by id', async () => {
        const response = await request('/api/products');
        expect(response.status).to.equal(200);
        expect(response.headers.get('content-type')).to.match(/^application\/json/);
        const all = (await response.json()) as { id: number }[];
        const listed = all.map((p) => p.id);
        expect(listed).to.deep.equal([...listed].sort((a, b) => a - b));
        expect(listed).to.include.members(ids);
      });

      it('pages by keyset with a Link to the next page, and none after the last', async () => {
        const first = await request(`/api/products?limit=2&after=${ids[0]! - 1}`);
        expect(((await first.json()) as { id: number }[]).map((p) => p.id)).to.deep.equal(ids.slice(0, 2));
        expect(first.headers.get('link')).to.equal(`</api/products?limit=2&after=${ids[1]}>; rel="next"`);
        const last = await request(`/api/products?limit=2&after=${ids[3]}`);
        expect(((await last.json()) as { id: number }[]).map((p) => p.id)).to.deep.equal([ids[4]]);
        expect(last.headers.get('link')).to.equal(null);
      });

      it('follows Link headers through every product exactly once', async () => {
        const all = ((await (await request('/api/products')).json()) as { id: number }[]).map((p) => p.id);
        const seen: number[] = [];
        let next: string | null = '/api/products?limit=3';
        while (next) {
          const response = await request(next);
          seen.push(...((await response.json()) as { id: number }[]).map((p) => p.id));
          next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1] ?? null;
        }
        expect(seen).to.deep.equal(all);
      });

      it('answers 400 naming each query parameter it does not take, rather than ignoring it', async () => {
        const errors = await expectFieldErrors(await request('/api/products?Limit=10&after=0&colour=red'), [
          'Limit',
          'colour',
        ]);
        expect(errors.Limit).to.deep.equal([
          'is not a query parameter of this operation (limit, after, ids, sku, stockState, q, minPrice, maxPrice, locationId, sort, cursor)',
        ]);
      });

      for (const query of [
        'limit=0',
        'limit=1001',
        'limit=abc',
        'limit=1.5',
        'limit=-1',
        'after=-1',
        'after=x',
        'limit=2&limit=3',
        'after=2147483648',
        'LIMIT=5',
        'offset=5',
      ]) {
        it(`answers 400 for ?${query}`, async () => {
          const field = query.split('=')[0]!;
          await expectFieldErrors(await request(`/api/products?${query}`), [field]);
        });
      }
    });

    describe('GET /api/products/{id}', () => {
      it('answers 200 with the product', async () => {
        const created = await create();
        const response = await request(`/api/products/${created.id}`);
        expect(response.status).to.equal(200);
        expect(await response.json()).to.deep.equal(created);
      });

      it('answers 404 for an id nobody has', async () => {
        const problem = await expectProblem(await request('/api/products/2147483647'), 404, 'PRODUCT_NOT_FOUND');
        expect(problem.instance).to.equal('/api/products/2147483647');
      });

      for (const id of ['0', '-1', 'abc', '1.5', '2147483648', '99999999999', '01', '1e3', '%20']) {
        it(`answers 400 for the id "${id}"`, async () => {
          await expectFieldErrors(await request(`/api/products/${id}`), ['id']);
        });
      }
    });

    describe('PUT /api/products/{id}', () => {
      it('replaces the details and answers the updated product', async () => {
        const { id } = await create();
        const response = await request(
          `/api/products/${id}`,
          json({ id, name: 'Updated', description: 'New', price: 2.5, quantityInStock: 4 }, { method: 'PUT' }),
        );
        expect(response.status).to.equal(200);
        const expected = {
          id,
          name: 'Updated',
          description: 'New',
          price: 2.5,
          quantityInStock: 4,
          reservedQuantity: 0,
          ...NOTHING_SET_ASIDE,
          availableQuantity: 4,
          ...NO_STOCK_SETTINGS,
          stockState: 'in',
        };
        expect(await response.json()).to.deep.equal(expected);
        expect(await (await request(`/api/products/${id}`)).json()).to.deep.equal(expected);
      });

      it('accepts a body without an id', async () => {
        const { id } = await create();
        const response = await request(`/api/products/${id}`, json({ name: 'No id', price: 1 }, { method: 'PUT' }));
        expect(await response.json()).to.deep.equal({
          id,
          name: 'No id',
          description: '',
          price: 1,
          quantityInStock: 0,
          reservedQuantity: 0,
          ...NOTHING_SET_ASIDE,
          availableQuantity: 0,
          ...NO_STOCK_SETTINGS,
          stockState: 'out',
        });
      });

      it('answers 404 for a missing product and creates nothing', async () => {
        await expectProblem(
          await request('/api/products/2147483646', json(aProductBody(), { method: 'PUT' })),
          404,
          'PRODUCT_NOT_FOUND',
        );
        await expectProblem(await request('/api/products/2147483646'), 404);
      });

      it('answers 400 for an id in the body other than the path one, and changes nothing', async () => {
        const created = await create();
        await expectFieldErrors(
          await request(
            `/api/products/${created.id}`,
            json({ ...aProductBody(), id: created.id + 1 }, { method: 'PUT' }),
          ),
          ['id'],
        );
        expect(await (await request(`/api/products/${created.id}`)).json()).to.deep.equal(created);
      });

      it('answers 400 for an invalid body, and changes nothing', async () => {
        const created = await create();
        await expectFieldErrors(
          await request(`/api/products/${created.id}`, json({ name: '', price: 'free' }, { method: 'PUT' })),
          ['name', 'price'],
        );
        expect(await (await request(`/api/products/${created.id}`)).json()).to.deep.equal(created);
      });

      it('answers 400 for a bad path id and 415 for a body that is not JSON', async () => {
        await expectFieldErrors(await request('/api/products/zero', json(aProductBody(), { method: 'PUT' })), ['id']);
        const { id } = await create();
        await expectProblem(
          await request(`/api/products/${id}`, {
            method: 'PUT',
            headers: { 'content-type': 'text/xml' },
            body: '<p/>',
          }),
          415,
        );
      });
    });

    describe('DELETE /api/products/{id}', () => {
      it('answers 204, then 404', async () => {
        const { id } = await create();
        const response = await request(`/api/products/${id}`, { method: 'DELETE' });
        expect(response.status).to.equal(204);
        expect(await response.text()).to.equal('');
        await expectProblem(await request(`/api/products/${id}`), 404);
        await expectProblem(await request(`/api/products/${id}`, { method: 'DELETE' }), 404, 'PRODUCT_NOT_FOUND');
      });

      it('answers 400 for a bad id', async () => {
        await expectFieldErrors(await request('/api/products/-5', { method: 'DELETE' }), ['id']);
      });
    });

    describe('query parameters', () => {
      it('answers 400 naming it for a query parameter on an operation that takes none, and changes nothing', async () => {
        const created = await create({ ...aProductBody(), quantityInStock: 5 });
        const none = ['is not a query parameter of this operation (it takes none)'];
        const path = `/api/products/${created.id}`;
        expect(await expectFieldErrors(await request(`${path}?limit=1`), ['limit'])).to.deep.equal({ limit: none });
        await expectFieldErrors(
          await request(`${path}?name=X`, json(aProductBody({ name: 'Changed' }), { method: 'PUT' })),
          ['name'],
        );
        await expectFieldErrors(await request(`${path}/stock-adjustments?dryRun=true`, json({ delta: -1 })), [
          'dryRun',
        ]);
        await expectFieldErrors(await request(`/api/products?id=1`, json(aProductBody())), ['id']);
        await expectFieldErrors(await request(`${path}?force=1`, { method: 'DELETE' }), ['force']);
        expect(await (await request(path)).json()).to.deep.equal(created);
      });

      it('pages the ledger newest first by keyset (order=desc), the pages together the ledger turned around', async () => {
        const a = await create({ ...aProductBody(), quantityInStock: 4 });
        for (const delta of [1, 2, 3]) await request(`/api/products/${a.id}/stock-adjustments`, json({ delta }));
        const oldestFirst = (await (await request(`/api/products/${a.id}/stock-movements`)).json()) as {
          quantityDelta: number;
        }[];
        const first = await request(`/api/products/${a.id}/stock-movements?order=desc&limit=3`);
        const link = first.headers.get('link')!;
        expect(link).to.match(
          new RegExp(`^</api/products/${a.id}/stock-movements\\?order=desc&limit=3&before=\\d+>; rel="next"$`),
        );
        const second = await request(/<([^>]+)>/.exec(link)![1]!);
        expect(second.headers.get('link')).to.equal(null);
        const newestFirst = [
          ...((await first.json()) as { quantityDelta: number }[]),
          ...((await second.json()) as { quantityDelta: number }[]),
        ];
        expect(newestFirst.map((m) => m.quantityDelta)).to.deep.equal([3, 2, 1, 4]);
        expect(newestFirst).to.deep.equal([...oldestFirst].reverse());
        // A movement made after the first page was read does not shift the next one: the keyset holds.
        await request(`/api/products/${a.id}/stock-adjustments`, json({ delta: 5 }));
        expect(
          ((await (await request(/<([^>]+)>/.exec(link)![1]!)).json()) as { quantityDelta: number }[]).map(
            (m) => m.quantityDelta,
          ),
        ).to.deep.equal([4]);
        for (const [query, field] of [
          ['order=newest', 'order'],
          ['order=desc&after=1', 'after'],
          ['before=10', 'before'],
          ['order=asc&before=10', 'before'],
          ['order=desc&before=0', 'before'],
          ['order=desc&order=asc', 'order'],
        ] as const) {
          await expectFieldErrors(await request(`/api/products/${a.id}/stock-movements?${query}`), [field]);
        }
        expect((await request('/api/products/2147483000/stock-movements?order=desc')).status).to.equal(404);
      });

      it('lets each listing take its own parameters, and only those', async () => {
        const { id } = await create();
        expect((await request(`/api/products?ids=${id}`)).status).to.equal(200);
        expect((await request(`/api/products/${id}/stock-movements?limit=1&after=0`)).status).to.equal(200);
        const movements = ['is not a query parameter of this operation (order, limit, after, before)'];
        expect(
          await expectFieldErrors(await request(`/api/products/${id}/stock-movements?ids=1`), ['ids']),
        ).to.deep.equal({ ids: movements });
        await expectFieldErrors(await request('/api/products?IDS=1'), ['IDS']);
      });

      it('answers 400 naming it for a query parameter on a reservation operation, and reserves nothing', async () => {
        const { id } = await create({ ...aProductBody(), quantityInStock: 5 });
        const reservation = { reference: `order-query-${backend}`, lines: [{ productId: id, quantity: 1 }] };
        await expectFieldErrors(await request('/api/reservations?ttlSeconds=60', json(reservation)), ['ttlSeconds']);
        const held = await request('/api/reservations', json(reservation));
        expect(held.status, await held.clone().text()).to.equal(201);
        const { id: reservationId } = (await held.json()) as { id: string };
        await expectFieldErrors(await request(`/api/reservations/${reservationId}?expand=lines`), ['expand']);
        await expectFieldErrors(
          await request(`/api/reservations/${reservationId}/commit?force=true`, { method: 'POST' }),
          ['force'],
        );
        await expectFieldErrors(await request(`/api/reservations/${reservationId}/release?now=1`, { method: 'POST' }), [
          'now',
        ]);
        expect(await (await request(`/api/reservations/${reservationId}`)).json()).to.include({ status: 'held' });
      });
    });

    describe('routing', () => {
      it('answers 404 problem+json for an unknown route', async () => {
        await expectProblem(await request('/nowhere'), 404, 'ROUTE_NOT_FOUND');
        await expectProblem(await request('/api/products/1/nested'), 404, 'ROUTE_NOT_FOUND');
      });

      it('answers 404, not 501, for a method the router has never heard of', async () => {
        await expectProblem(await request('/nowhere', { method: 'PROPFIND' }), 404, 'ROUTE_NOT_FOUND');
        const known = await request('/api/products', { method: 'PROPFIND' });
        expect(known.headers.get('allow')).to.equal('HEAD, GET, POST');
        await expectProblem(known, 405, 'METHOD_NOT_ALLOWED');
      });

      it('answers what Node itself refuses (a malformed request, headers too large) as problem+json with a request id', async () => {
        for (const [raw, status, code] of [
          ['GET /api/products HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n', 400, 'MALFORMED_REQUEST'],
          [`GET /api/products HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
        ] as const) {
          const response = await rawHttpRequest(api.url, raw);
          expect(response.status).to.equal(status);
          expect(response.headers).to.include({ 'content-type': PROBLEM, connection: 'close' });
          expect(response.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
          expect(JSON.parse(response.body)).to.include({ status, code });
        }
      });

      it('answers 405 with Allow for a known route and an unsupported method', async () => {
        const onCollection = await request('/api/products', { method: 'DELETE' });
        expect(onCollection.headers.get('allow')).to.equal('HEAD, GET, POST');
        await expectProblem(onCollection, 405, 'METHOD_NOT_ALLOWED');
        const onItem = await request('/api/products/1', { method: 'PATCH', ...json({}) });
        expect(onItem.headers.get('allow')).to.equal('HEAD, GET, PUT, DELETE');
        await expectProblem(onItem, 405, 'METHOD_NOT_ALLOWED');
      });
    });
  });
}
