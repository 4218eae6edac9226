import { expect } from 'chai';
import fc from 'fast-check';
import { type Backend, type ServiceUnderTest, startServiceUnderTest } from './support';

const FIELDS = ['id', 'name', 'description', 'price', 'quantityInStock', 'Name', 'PRICE', 'delta', 'reason', 'extra'];

/** Any JSON value, biased towards the edges that break parsers and validators. */
const edgyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(0, -0, 1e-7, 1.005, 2147483647, 2147483648, -2147483649, 1e308, 9999999999999.99, 1e14, '', ' ', '\u0000', 'a\u0000b', 'x'.repeat(2001), null, true, [], {}),
  fc.string({ unit: 'binary', maxLength: 300 }),
);

const validProduct = fc.record({
  name: fc.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim().length > 0),
  description: fc.string({ maxLength: 300 }),
  price: fc.integer({ min: 0, max: 99_999_999 }).map((cents) => cents / 100),
  quantityInStock: fc.integer({ min: 0, max: 2147483647 }),
});

const anyBody = fc.oneof(
  validProduct.map((body) => JSON.stringify(body)),
  fc.dictionary(fc.constantFrom(...FIELDS), edgyValue, { maxKeys: 6 }).map((body) => JSON.stringify(body)),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 200 }),
  fc.constant(`{"description":"${'y'.repeat(70_000)}"}`),
);

const idSegment = fc.oneof(
  fc.integer({ min: -5, max: 20 }).map(String),
  fc.constantFrom('0', '2147483647', '2147483648', '1e3', '01', '1.0', '%20', '%00', '..', 'abc'),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);

const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 300 });

const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
  path: fc.oneof(
    fc.constant('/api/products'),
    idSegment.map((id) => `/api/products/${id}`),
    idSegment.map((id) => `/api/products/${id}/stock-adjustments`),
    fc.tuple(fc.constantFrom('limit', 'after', 'x'), fc.oneof(idSegment, headerText.map(encodeURIComponent))).map(([k, v]) => `/api/products?${k}=${v}`),
    fc.constantFrom('/health/ready', '/swagger', '/nowhere', '/api', '/api/products/1/stock-adjustments/2'),
  ),
  body: fc.option(anyBody, { nil: undefined }),
  contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/merge-patch+json', undefined),
  ifMatch: fc.option(fc.oneof(headerText, fc.constantFrom('*', '"1"', 'W/"1"', '"1", "2"', '"2147483648"', '"99999999999999"')), { nil: undefined }),
  ifNoneMatch: fc.option(fc.oneof(headerText, fc.constantFrom('*', '"1"')), { nil: undefined }),
  idempotencyKey: fc.option(fc.oneof(headerText, fc.constantFrom('k1', 'k2')), { nil: undefined }),
  requestId: fc.option(headerText, { nil: undefined }),
  contentEncoding: fc.option(fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'zstd', 'x'), { nil: undefined }),
});

for (const backend of ['memory', 'sqlite', 'postgresql'] as Backend[]) {
  describe(`Any request on ${backend}`, function () {
    this.timeout(120_000);
    let api: ServiceUnderTest;
    before(async function () {
      api = await startServiceUnderTest(backend, this);
      // Something to hit: a few products, so ids 1..3 exist.
      for (let i = 0; i < 3; i++) await fetch(`${api.service.url}/api/products`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `P${i}`, price: 1, quantityInStock: 5 }) });
    });
    after(async () => api?.stop());

    it('never answers 5xx, and answers every 4xx as problem+json', async () => {
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const headers: Record<string, string> = {};
          if (r.contentType) headers['content-type'] = r.contentType;
          if (r.ifMatch !== undefined) headers['if-match'] = r.ifMatch;
          if (r.ifNoneMatch !== undefined) headers['if-none-match'] = r.ifNoneMatch;
          if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
          if (r.requestId !== undefined) headers['x-request-id'] = r.requestId;
          if (r.contentEncoding !== undefined) headers['content-encoding'] = r.contentEncoding;
          const hasBody = r.body !== undefined && r.method !== 'GET' && r.method !== 'HEAD';
          const response = await fetch(`${api.service.url}${r.path}`, { method: r.method, headers, ...(hasBody && { body: r.body }) });
          const text = await response.text();
          expect(response.status, `${r.method} ${r.path} → ${text.slice(0, 300)}`).to.be.below(500);
          expect(response.headers.get('x-request-id')).to.be.a('string');
          if (response.status >= 400 && r.method !== 'HEAD') {
            expect(response.headers.get('content-type'), `${r.method} ${r.path}`).to.equal('application/problem+json');
            expect(JSON.parse(text)).to.include({ status: response.status });
          }
        }),
        { numRuns: backend === 'memory' ? 400 : 200, seed: Number(process.env.FAST_CHECK_SEED ?? Date.now() % 2 ** 31) },
      );
    });
  });
}
