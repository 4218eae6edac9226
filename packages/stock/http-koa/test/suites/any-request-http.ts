import { rawHttpRequest } from '@platform/test-kit';
import { expect } from 'chai';
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { type ApiUnderTest, type StartApi } from '../support/api-under-test';
import { checkedFetch, uncheckedFetch } from '../support/contract';

/** A reservation id nobody holds: enough to reach the reservation routes' checks. */
const RESERVATION_ID = '00000000-0000-4000-8000-000000000000';

const FIELDS = [
  'id',
  'name',
  'description',
  'price',
  'quantityInStock',
  'Name',
  'PRICE',
  'delta',
  'reason',
  'extra',
  '__proto__',
  'constructor',
];

/** Any JSON value, biased towards the edges that break parsers and validators. */
const edgyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    0,
    -0,
    1e-7,
    1.005,
    2147483647,
    2147483648,
    -2147483649,
    1e308,
    9999999999999.99,
    1e14,
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    'x'.repeat(2001),
    null,
    true,
    [],
    {},
  ),
  fc.constantFrom('a\ud800b', '\udfff', 'x\ud83d', '\ude80\ud83d', ' \ud800 '), // lone surrogates, which JSON.stringify sends as \ud800 escapes
  fc.string({ unit: 'binary', maxLength: 300 }),
);

const validProduct = fc.record({
  name: fc.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim().length > 0),
  description: fc.string({ maxLength: 300 }),
  price: fc.integer({ min: 0, max: 99_999_999 }).map((cents) => cents / 100),
  quantityInStock: fc.integer({ min: 0, max: 2147483647 }),
});

/** A JSON object text that gives some property twice, which JSON.parse alone would quietly resolve. */
const repeatedProperty = fc
  .tuple(validProduct, fc.constantFrom(...FIELDS), edgyValue, edgyValue)
  .map(
    ([product, field, first, second]) =>
      `{"${field}":${JSON.stringify(first)},${JSON.stringify(product).slice(1, -1)},"${field}":${JSON.stringify(second)}}`,
  );

/** Bytes that may not be UTF-8, alone or inside an otherwise valid body. */
const oddBytes = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc
    .uint8Array({ minLength: 1, maxLength: 8 })
    .map((bytes) => Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bytes), Buffer.from('","price":1}')])),
  fc.constantFrom(
    Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('{"name":"BOM","price":1}')]),
    Buffer.from('{"name":"\xed\xa0\x80","price":1}', 'latin1'),
  ),
);

/** A body, and whether any write must refuse it whatever else the request says. */
interface Body {
  readonly text: string | Buffer;
  readonly refused: boolean;
}
const body = (
  text: fc.Arbitrary<string | Buffer>,
  refused: (text: string | Buffer) => boolean = () => false,
): fc.Arbitrary<Body> => text.map((t) => ({ text: t, refused: refused(t) }));

const anyBody = fc.oneof(
  body(validProduct.map((product) => JSON.stringify(product))),
  body(fc.dictionary(fc.constantFrom(...FIELDS), edgyValue, { maxKeys: 6 }).map((product) => JSON.stringify(product))),
  body(fc.jsonValue().map((value) => JSON.stringify(value))),
  body(fc.string({ maxLength: 200 })),
  body(fc.constant(`{"description":"${'y'.repeat(70_000)}"}`)),
  body(repeatedProperty, () => true),
  body(
    fc.constantFrom(
      '{"__proto__":{"polluted":true},"name":"A","price":1}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"name":"A","price":1,"nested":{"a":1,"a":2}}',
      '{"delta":1,"\\u0064elta":2}',
    ),
    () => true,
  ),
  body(oddBytes, (bytes) => !isUtf8(bytes as Buffer)),
);

/** The names in a path's query that its operation does not take (none for anything but the listings). */
function unknownQueryParameters(method: string, path: string): string[] {
  const url = new URL(path, 'http://test');
  const reads = method === 'GET' || method === 'HEAD';
  const takes =
    reads && url.pathname === '/api/products'
      ? ['limit', 'after', 'ids']
      : reads && /^\/api\/products\/[^/]+\/stock-movements$/.test(url.pathname)
        ? ['limit', 'after']
        : reads && (url.pathname === '/api/shipments' || url.pathname === '/api/returns')
          ? ['orderId']
          : [];
  return url.pathname.startsWith('/api/') ? [...url.searchParams.keys()].filter((name) => !takes.includes(name)) : [];
}

const queryName = fc.oneof(
  fc.constantFrom('limit', 'after', 'ids', 'Limit', 'AFTER', 'x', '__proto__', 'constructor', 'toString', ''),
  fc.string({ maxLength: 10 }),
);
const queryValue = fc.oneof(
  fc.integer({ min: -5, max: 2000 }).map(String),
  fc.constantFrom('', '0', '2147483648', '1e3'),
  fc.string({ maxLength: 20 }),
);
const queryString = fc
  .array(fc.tuple(queryName, queryValue), { minLength: 1, maxLength: 4 })
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

const idSegment = fc.oneof(
  fc.integer({ min: -5, max: 20 }).map(String),
  fc.constantFrom('0', '2147483647', '2147483648', '1e3', '01', '1.0', '%20', '%00', '..', 'abc'),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);

const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 300,
});

const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
  path: fc.oneof(
    fc.constant('/api/products'),
    idSegment.map((id) => `/api/products/${id}`),
    idSegment.map((id) => `/api/products/${id}/stock-adjustments`),
    fc.constantFrom('/api/shipments', '/api/returns', `/api/shipments?orderId=${RESERVATION_ID}`),
    idSegment.map((id) => `/api/returns/${id}`),
    fc
      .tuple(fc.constantFrom('limit', 'after', 'x'), fc.oneof(idSegment, headerText.map(encodeURIComponent)))
      .map(([k, v]) => `/api/products?${k}=${v}`),
    fc
      .tuple(
        fc.constantFrom(
          '/api/products',
          '/api/products/1',
          '/api/products/2/stock-adjustments',
          '/api/products/1/stock-movements',
          '/api/reservations',
          `/api/reservations/${RESERVATION_ID}`,
          '/api/shipments',
        ),
        queryString,
      )
      .map(([path, query]) => `${path}?${query}`),
    fc.constantFrom('/health/ready', '/swagger', '/nowhere', '/api', '/api/products/1/stock-adjustments/2'),
    fc.constantFrom(
      '/swagger/openapi.json',
      '/swagger/assets/1.0.0/__proto__',
      '/swagger/assets/1.0.0/constructor',
      '/swagger/assets/1.0.0/favicon.png',
      '/swagger/x',
    ),
  ),
  body: fc.option(anyBody, { nil: undefined }),
  contentType: fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/merge-patch+json',
    undefined,
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; charset="UTF-8"',
    'application/json; charset=',
    'application/json; charset',
  ),
  ifMatch: fc.option(
    fc.oneof(headerText, fc.constantFrom('*', '"1"', 'W/"1"', '"1", "2"', '"2147483648"', '"99999999999999"')),
    { nil: undefined },
  ),
  ifNoneMatch: fc.option(fc.oneof(headerText, fc.constantFrom('*', '"1"')), { nil: undefined }),
  idempotencyKey: fc.option(fc.oneof(headerText, fc.constantFrom('k1', 'k2')), { nil: undefined }),
  requestId: fc.option(headerText, { nil: undefined }),
  contentEncoding: fc.option(
    fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'zstd', 'x', 'GZIP', 'Br', 'DEFLATE', 'gzip, gzip', ''),
    { nil: undefined },
  ),
  /**
   * Whether the body is really encoded as its Content-Encoding says (else the server gets plain bytes it must not choke
   * on).
   */
  encoded: fc.boolean(),
});

const ENCODERS: Record<string, (body: string | Buffer) => Buffer> = {
  gzip: gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
};

/** A request whose framing fetch would not send: transfer codings of its own, chunked bodies. */
const rawRequest = fc.record({
  method: fc.constantFrom('POST', 'PUT', 'GET', 'DELETE'),
  path: fc.constantFrom(
    '/api/products',
    '/api/products/1',
    '/api/products/1/stock-adjustments',
    '/swagger',
    '/nowhere',
  ),
  transferEncoding: fc.constantFrom(
    'chunked',
    'CHUNKED',
    'gzip, chunked',
    'identity, chunked',
    'chunked, chunked',
    'gzip',
    'br,chunked',
    'chunked;q=1',
  ),
  contentEncoding: fc.option(fc.constantFrom('gzip', 'GZIP', 'identity', 'zstd'), { nil: undefined }),
  chunks: fc.array(
    fc.oneof(
      anyBody.map(({ text }) => Buffer.from(text)),
      fc.constant(Buffer.alloc(0)),
    ),
    { maxLength: 3 },
  ),
});

export function anyRequestHttpSuite(backend: string, start: StartApi): void {
  describe(`Any request on ${backend}`, function () {
    this.timeout(120_000);
    let api: ApiUnderTest;
    before(async function () {
      api = await start(this);
      // Something to hit: a few products, so ids 1..3 exist.
      for (let i = 0; i < 3; i++)
        await checkedFetch(`${api.url}/api/products`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `P${i}`, price: 1, quantityInStock: 5 }),
        });
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
          const encode = r.encoded ? ENCODERS[(r.contentEncoding ?? '').toLowerCase()] : undefined;
          const body = hasBody && r.body !== undefined ? (encode ? encode(r.body.text) : r.body.text) : undefined;
          const init = { method: r.method, headers, ...(body !== undefined && { body }) };
          const url = `${api.url}${r.path}`;
          const response = /^\/swagger(\/|$|\?)/.test(r.path)
            ? await uncheckedFetch(url, init, 'the page and its files are no API operation')
            : await checkedFetch(url, init);
          const text = await response.text();
          const what = `${r.method} ${r.path} (${r.contentType}, ${r.contentEncoding}) ${String(r.body?.text).slice(0, 100)} → ${text.slice(0, 300)}`;
          expect(response.status, what).to.be.below(500);
          // What must never be taken: a query parameter the operation does not know, a body not in UTF-8 or giving a
          // property twice.
          if (r.method !== 'OPTIONS' && unknownQueryParameters(r.method, r.path).length > 0)
            expect(response.status, what).to.be.at.least(400);
          const writes = hasBody && (r.method === 'POST' || r.method === 'PUT');
          if (writes && (r.body?.refused || /charset=(latin1|utf-16)/.test(r.contentType ?? '')))
            expect(response.status, what).to.be.at.least(400);
          expect(response.headers.get('x-request-id')).to.be.a('string');
          if (response.status >= 400 && r.method !== 'HEAD') {
            expect(response.headers.get('content-type'), `${r.method} ${r.path}`).to.equal('application/problem+json');
            expect(JSON.parse(text)).to.include({ status: response.status });
          }
        }),
        {
          numRuns: backend === 'memory' ? 400 : 200,
          seed: Number(process.env.FAST_CHECK_SEED ?? Date.now() % 2 ** 31),
        },
      );
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      // Whatever was accepted is stored as it will be read back: well-formed text only.
      const stored = (await (await checkedFetch(`${api.url}/api/products`)).json()) as {
        name: string;
        description: string;
      }[];
      for (const product of stored)
        expect(product.name.isWellFormed() && product.description.isWellFormed(), JSON.stringify(product)).to.equal(
          true,
        );
    });

    it('never answers 5xx to odd framing either, and answers every refusal as problem+json with a request id', async () => {
      await fc.assert(
        fc.asyncProperty(rawRequest, async (r) => {
          const head = [
            `${r.method} ${r.path} HTTP/1.1`,
            'Host: test',
            'Connection: close',
            'Content-Type: application/json',
            `Transfer-Encoding: ${r.transferEncoding}`,
          ];
          if (r.contentEncoding !== undefined) head.push(`Content-Encoding: ${r.contentEncoding}`);
          const chunks = r.chunks
            .filter((chunk) => chunk.length > 0)
            .flatMap((chunk) => [`${chunk.length.toString(16)}\r\n`, chunk, '\r\n']);
          const response = await rawHttpRequest(api.url, `${head.join('\r\n')}\r\n\r\n`, ...chunks, '0\r\n\r\n');
          const what = `${r.method} ${r.path} (Transfer-Encoding: ${r.transferEncoding}) → ${response.status} ${response.body.slice(0, 300)}`;
          expect(response.status, what).to.be.within(200, 499);
          expect(response.headers['x-request-id'], what).to.be.a('string');
          if ((r.method === 'POST' || r.method === 'PUT') && r.transferEncoding.toLowerCase() !== 'chunked')
            expect(response.status, what).to.be.at.least(400);
          if (response.status >= 400) expect(JSON.parse(response.body), what).to.include({ status: response.status });
        }),
        { numRuns: backend === 'memory' ? 100 : 50, seed: Number(process.env.FAST_CHECK_SEED ?? Date.now() % 2 ** 31) },
      );
    });
  });
}
