import { aProductBody } from '@stock/domain/testing';
import { expect } from 'chai';
import { type ApiUnderTest, json, type StartApi } from '../support/api-under-test';

interface ProductJson {
  id: number;
  quantityInStock: number;
}

export function stockIntegrityHttpSuite(backend: string, start: StartApi): void {
  describe(`Stock integrity over HTTP on ${backend}`, function () {
    this.timeout(120_000);
    let api: ApiUnderTest;
    const request = (path: string, init?: RequestInit) => api.request(path, init);
    const create = async (overrides: Record<string, unknown> = {}) => {
      const response = await request('/api/products', json(aProductBody(overrides)));
      expect(response.status).to.equal(201);
      return { product: (await response.json()) as ProductJson, etag: response.headers.get('etag')! };
    };
    const adjust = (id: number, body: unknown, headers: Record<string, string> = {}) =>
      request(`/api/products/${id}/stock-adjustments`, json(body, { headers }));
    const stockOf = async (id: number) =>
      ((await (await request(`/api/products/${id}`)).json()) as ProductJson).quantityInStock;

    before(async function () {
      api = await start(this);
    });
    after(async () => api?.stop());

    describe('POST /api/products/{id}/stock-adjustments', () => {
      it('changes the stock and answers the product with its new ETag', async () => {
        const { product, etag } = await create({ quantityInStock: 10 });
        const response = await adjust(product.id, { delta: -3, reason: 'order 1042' });
        expect(response.status).to.equal(200);
        expect(await response.json()).to.include({ id: product.id, quantityInStock: 7 });
        expect(response.headers.get('etag'))
          .to.match(/^"\d+"$/)
          .and.not.equal(etag);
        expect((await adjust(product.id, { Delta: 5 })).status).to.equal(200);
        expect(await stockOf(product.id)).to.equal(12);
      });

      it('answers 409 INSUFFICIENT_STOCK with the available quantity, and changes nothing', async () => {
        const { product } = await create({ quantityInStock: 2 });
        const response = await adjust(product.id, { delta: -3 });
        expect(response.status).to.equal(409);
        expect(await response.json()).to.include({ code: 'INSUFFICIENT_STOCK', available: 2, status: 409 });
        expect(await stockOf(product.id)).to.equal(2);
      });

      it('answers 409 STOCK_LIMIT_EXCEEDED past 2147483647, and changes nothing', async () => {
        const { product } = await create({ quantityInStock: 2147483000 });
        const response = await adjust(product.id, { delta: 1000 });
        expect(response.status).to.equal(409);
        expect(await response.json()).to.include({ code: 'STOCK_LIMIT_EXCEEDED', available: 2147483000 });
        expect(await stockOf(product.id)).to.equal(2147483000);
      });

      it('answers 404 for a missing product', async () => {
        const response = await adjust(2147483000, { delta: 1 });
        expect(response.status).to.equal(404);
        expect(await response.json()).to.include({ code: 'PRODUCT_NOT_FOUND' });
      });

      for (const [what, body] of [
        ['a zero delta', { delta: 0 }],
        ['a fractional delta', { delta: 1.5 }],
        ['a string delta', { delta: '1' }],
        ['a null delta', { delta: null }],
        ['a missing delta', {}],
        ['a delta past int32', { delta: 2147483648 }],
        ['a delta below int32', { delta: -2147483649 }],
        ['a reason over 200 characters', { delta: 1, reason: 'x'.repeat(201) }],
        ['an unknown property', { delta: 1, quantity: 3 }],
      ] as const) {
        it(`answers 400 for ${what}`, async () => {
          const { product } = await create({ quantityInStock: 5 });
          const response = await adjust(product.id, body);
          expect(response.status).to.equal(400);
          expect(await response.json()).to.include({ code: 'VALIDATION_FAILED' });
          expect(await stockOf(product.id)).to.equal(5);
        });
      }

      it('gives exactly 500 successes and 500 refusals for 1,000 concurrent -1 on a stock of 500', async () => {
        const { product } = await create({ quantityInStock: 500 });
        const statuses = await Promise.all(
          Array.from({ length: 1000 }, async () => (await adjust(product.id, { delta: -1 })).status),
        );
        expect(statuses.filter((s) => s === 200)).to.have.length(500);
        expect(statuses.filter((s) => s === 409)).to.have.length(500);
        expect(await stockOf(product.id)).to.equal(0);
      });

      it('ends a storm of restocks and sales at the initial stock plus the accepted deltas, never below 0', async () => {
        const initial = 20;
        const { product } = await create({ quantityInStock: initial });
        let seed = 42;
        const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
        const deltas = Array.from({ length: 400 }, () =>
          random() < 0.6 ? -(1 + Math.floor(random() * 5)) : 1 + Math.floor(random() * 5),
        );
        const results = await Promise.all(
          deltas.map(async (delta) => {
            const response = await adjust(product.id, { delta });
            const body = (await response.json()) as ProductJson & { available?: number };
            return { delta, status: response.status, body };
          }),
        );
        expect(results.every((r) => r.status === 200 || r.status === 409)).to.equal(true);
        const accepted = results.filter((r) => r.status === 200);
        expect(accepted.length).to.be.greaterThan(0);
        expect(results.filter((r) => r.status === 409).length).to.be.greaterThan(0);
        for (const { body } of results) expect(body.quantityInStock ?? body.available).to.be.at.least(0);
        expect(await stockOf(product.id)).to.equal(initial + accepted.reduce((sum, r) => sum + r.delta, 0));
      });
    });

    describe('ETag, If-Match and If-None-Match', () => {
      it('answers 304 to If-None-Match with the current ETag, and 200 once the product changed', async () => {
        const { product, etag } = await create();
        expect(etag).to.match(/^"\d+"$/);
        const read = await request(`/api/products/${product.id}`);
        expect(read.headers.get('etag')).to.equal(etag);
        const unchanged = await request(`/api/products/${product.id}`, { headers: { 'If-None-Match': etag } });
        expect(unchanged.status).to.equal(304);
        expect(unchanged.headers.get('etag')).to.equal(etag);
        expect(await unchanged.text()).to.equal('');
        expect(
          (await request(`/api/products/${product.id}`, { headers: { 'If-None-Match': `"999", ${etag}` } })).status,
        ).to.equal(304);
        await adjust(product.id, { delta: 1 });
        expect((await request(`/api/products/${product.id}`, { headers: { 'If-None-Match': etag } })).status).to.equal(
          200,
        );
      });

      it('changes the ETag with every write: PUT and adjustments alike', async () => {
        const { product, etag: first } = await create();
        const put = await request(`/api/products/${product.id}`, json(aProductBody(), { method: 'PUT' }));
        const second = put.headers.get('etag');
        const adjusted = await adjust(product.id, { delta: 2 });
        const third = adjusted.headers.get('etag');
        expect(new Set([first, second, third]).size).to.equal(3);
      });

      it('updates with a matching If-Match, and answers 412 with a stale one, changing nothing', async () => {
        const { product, etag } = await create({ name: 'Before' });
        const ok = await request(
          `/api/products/${product.id}`,
          json(aProductBody({ name: 'After' }), { method: 'PUT', headers: { 'If-Match': etag } }),
        );
        expect(ok.status).to.equal(200);
        const stale = await request(
          `/api/products/${product.id}`,
          json(aProductBody({ name: 'Lost update' }), { method: 'PUT', headers: { 'If-Match': etag } }),
        );
        expect(stale.status).to.equal(412);
        expect(await stale.json()).to.include({ code: 'VERSION_MISMATCH' });
        expect(((await (await request(`/api/products/${product.id}`)).json()) as { name: string }).name).to.equal(
          'After',
        );
      });

      it('treats If-Match: * as "exists", weak tags as never matching, and refuses a malformed header', async () => {
        const { product, etag } = await create();
        expect(
          (
            await request(
              `/api/products/${product.id}`,
              json(aProductBody(), { method: 'PUT', headers: { 'If-Match': '*' } }),
            )
          ).status,
        ).to.equal(200);
        expect(
          (
            await request(
              '/api/products/2147480000',
              json(aProductBody(), { method: 'PUT', headers: { 'If-Match': '*' } }),
            )
          ).status,
        ).to.equal(404);
        const current = (await request(`/api/products/${product.id}`)).headers.get('etag')!;
        expect(
          (
            await request(
              `/api/products/${product.id}`,
              json(aProductBody(), { method: 'PUT', headers: { 'If-Match': `W/${current}` } }),
            )
          ).status,
        ).to.equal(412);
        expect(
          (
            await request(
              `/api/products/${product.id}`,
              json(aProductBody(), { method: 'PUT', headers: { 'If-Match': `"0", ${current}` } }),
            )
          ).status,
        ).to.equal(200);
        const malformed = await request(
          `/api/products/${product.id}`,
          json(aProductBody(), { method: 'PUT', headers: { 'If-Match': 'not-a-tag' } }),
        );
        expect(malformed.status).to.equal(400);
        expect(etag).to.be.a('string');
      });

      it('answers 412, not 500, for an entity tag past any version', async () => {
        const { product } = await create();
        for (const tag of ['"2147483648"', '"99999999999999"', '"0"']) {
          expect(
            (
              await request(
                `/api/products/${product.id}`,
                json(aProductBody(), { method: 'PUT', headers: { 'If-Match': tag } }),
              )
            ).status,
            tag,
          ).to.equal(412);
        }
      });

      it('lets exactly one of 50 concurrent PUTs with the same If-Match succeed', async () => {
        const { product, etag } = await create();
        const statuses = await Promise.all(
          Array.from(
            { length: 50 },
            async (_, i) =>
              (
                await request(
                  `/api/products/${product.id}`,
                  json(aProductBody({ name: `Writer ${i}` }), { method: 'PUT', headers: { 'If-Match': etag } }),
                )
              ).status,
          ),
        );
        expect(statuses.filter((s) => s === 200)).to.have.length(1);
        expect(statuses.filter((s) => s === 412)).to.have.length(49);
      });

      it('keeps PUT without If-Match working, for existing clients', async () => {
        const { product } = await create();
        expect((await request(`/api/products/${product.id}`, json(aProductBody(), { method: 'PUT' }))).status).to.equal(
          200,
        );
      });
    });

    describe('Idempotency-Key', () => {
      const key = () => `key-${Math.random().toString(36).slice(2)}`;

      it('creates once and answers a repeat with the recorded status, headers and body', async () => {
        const headers = { 'Idempotency-Key': key() };
        const body = aProductBody();
        const first = await request('/api/products', json(body, { headers }));
        const second = await request('/api/products', json(body, { headers }));
        expect(first.status).to.equal(201);
        expect(second.status).to.equal(201);
        expect(second.headers.get('idempotent-replayed')).to.equal('true');
        expect(first.headers.get('idempotent-replayed')).to.equal(null);
        expect(second.headers.get('location')).to.equal(first.headers.get('location'));
        expect(second.headers.get('etag')).to.equal(first.headers.get('etag'));
        expect(await second.json()).to.deep.equal(await first.json());
        const all = (await (await request('/api/products')).json()) as { name: string }[];
        expect(all.filter((p) => p.name === body.name)).to.have.length(1);
      });

      it('creates once when 20 repeats arrive together', async () => {
        const headers = { 'Idempotency-Key': key() };
        const body = aProductBody();
        const responses = await Promise.all(
          Array.from({ length: 20 }, () => request('/api/products', json(body, { headers }))),
        );
        expect(responses.map((r) => r.status)).to.deep.equal(Array(20).fill(201));
        expect(new Set(responses.map((r) => r.headers.get('location'))).size).to.equal(1);
        const all = (await (await request('/api/products')).json()) as { name: string }[];
        expect(all.filter((p) => p.name === body.name)).to.have.length(1);
      });

      it('adjusts once per key, even when the repeats race', async () => {
        const { product } = await create({ quantityInStock: 100 });
        const headers = { 'Idempotency-Key': key() };
        const statuses = await Promise.all(
          Array.from({ length: 10 }, async () => (await adjust(product.id, { delta: -7 }, headers)).status),
        );
        expect(statuses).to.deep.equal(Array(10).fill(200));
        expect(await stockOf(product.id)).to.equal(93);
      });

      it('treats the same payload in another casing or key order as a repeat', async () => {
        const { product } = await create({ quantityInStock: 10 });
        const headers = { 'Idempotency-Key': key() };
        expect((await adjust(product.id, { delta: -1, reason: 'r' }, headers)).status).to.equal(200);
        const repeat = await adjust(product.id, { Reason: 'r', Delta: -1 }, headers);
        expect(repeat.status).to.equal(200);
        expect(repeat.headers.get('idempotent-replayed')).to.equal('true');
        expect(await stockOf(product.id)).to.equal(9);
      });

      it('answers 422 for the same key with another payload, or for another product', async () => {
        const headers = { 'Idempotency-Key': key() };
        const { product } = await create();
        const other = await create();
        expect((await adjust(product.id, { delta: 1 }, headers)).status).to.equal(200);
        const changed = await adjust(product.id, { delta: 2 }, headers);
        expect(changed.status).to.equal(422);
        expect(await changed.json()).to.include({ code: 'IDEMPOTENCY_KEY_REUSED' });
        expect((await adjust(other.product.id, { delta: 1 }, headers)).status).to.equal(422);
      });

      it('records nothing for a request that failed, so a retry can succeed', async () => {
        const { product } = await create({ quantityInStock: 0 });
        const headers = { 'Idempotency-Key': key() };
        expect((await adjust(product.id, { delta: -1 }, headers)).status).to.equal(409);
        await adjust(product.id, { delta: 5 });
        const retry = await adjust(product.id, { delta: -1 }, headers);
        expect(retry.status).to.equal(200);
        expect(retry.headers.get('idempotent-replayed')).to.equal(null);
      });

      it('refuses a key that is not 1 to 255 visible ASCII characters', async () => {
        const response = await request(
          '/api/products',
          json(aProductBody(), { headers: { 'Idempotency-Key': 'x'.repeat(256) } }),
        );
        expect(response.status).to.equal(400);
        expect(await response.json()).to.have.nested.property('errors.Idempotency-Key');
      });
    });

    describe('operations', () => {
      it('answers liveness and readiness', async () => {
        expect(await (await request('/health/live')).json()).to.deep.equal({ status: 'live' });
        expect(await (await request('/health/ready')).json()).to.deep.equal({
          status: 'ready',
          checks: { database: backend === 'memory' ? 'memory' : 'up', broker: 'off' },
        });
      });

      it('exposes Prometheus metrics for requests, adjustments and the pool', async () => {
        const { product } = await create({ quantityInStock: 1 });
        await adjust(product.id, { delta: -5 });
        const response = await request('/metrics');
        expect(response.headers.get('content-type')).to.match(/^text\/plain/);
        const text = await response.text();
        expect(text).to.match(/http_requests_total\{route="\/api\/products",method="POST",status="201"\} \d+/);
        expect(text).to.match(
          /http_request_duration_seconds_bucket\{le="0.005",route="\/api\/products\/:id",method="GET",status="200"\}/,
        );
        expect(text).to.match(/stock_adjustments_total\{outcome="insufficient_stock"\} \d+/);
        if (backend !== 'memory') expect(text).to.match(/db_pool_connections\{state="max"\} \d+/);
      });

      it('answers every response with a request id, nosniff and no X-Powered-By, and logs it', async () => {
        const mine = await request('/api/products/1', { headers: { 'X-Request-Id': 'trace-abc.123' } });
        expect(mine.headers.get('x-request-id')).to.equal('trace-abc.123');
        const generated = await request('/nowhere', { headers: { 'X-Request-Id': 'bad id with spaces' } });
        expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
        expect(generated.headers.get('x-content-type-options')).to.equal('nosniff');
        expect(generated.headers.get('x-powered-by')).to.equal(null);
        const created = await request(
          '/api/products',
          json(aProductBody(), { headers: { 'X-Request-Id': 'create-42' } }),
        );
        const { id } = (await created.json()) as ProductJson;
        expect(api.logs.filter((line) => line.requestId === 'create-42')).to.have.length(1);
        expect(api.logs.find((line) => line.message === 'request' && line.requestId === 'create-42')).to.include({
          method: 'POST',
          path: '/api/products',
          status: 201,
          event: 'product created',
          productId: id,
        });
      });
    });
  });
}
