import { Validator } from '@seriousme/openapi-schema-validator';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { checkedFetch, uncheckedFetch } from './checked-fetch';
import { assertMatchesContract, OPENAPI_FILE, openApiDocument } from '@stock/http-koa/testing';
import { type ServiceUnderTest, startServiceUnderTest } from './support';

chai.use(chaiAsPromised);
const { expect } = chai;

describe('docs/openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 description', async () => {
    const validator = new Validator();
    const result = await validator.validate(OPENAPI_FILE);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');
  });

  describe('the response check every HTTP test goes through', () => {
    const url = 'http://127.0.0.1/api/products/1';
    const json = (body: unknown, status: number, type = 'application/json') =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });

    it('accepts a response the description allows', async () => {
      await assertMatchesContract(
        'GET',
        url,
        json(
          {
            id: 1,
            sku: null,
            name: 'A',
            description: '',
            price: 1.5,
            quantityInStock: 0,
            reservedQuantity: 0,
            availableQuantity: 0,
            backorderLimit: 0,
            backorderedQuantity: 0,
            lowStockThreshold: 0,
            stockState: 'out',
            committedQuantity: 0,
            qualityControlQuantity: 0,
            damagedQuantity: 0,
          },
          200,
        ),
      );
    });

    it('rejects a body that breaks the schema', async () => {
      await expect(
        assertMatchesContract('GET', url, json({ id: 1, name: 'A', price: '1.50' }, 200)),
      ).to.be.rejectedWith(/does not match the schema/);
    });

    it('rejects a request the description forbids that was taken, and takes it refused', async () => {
      const list = 'http://127.0.0.1/api/products?ids=1,%202';
      await expect(assertMatchesContract('GET', list, json([], 200))).to.be.rejectedWith(/forbids this request/);
      const problem = {
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: 'ids',
        code: 'VALIDATION_FAILED',
      };
      await assertMatchesContract('GET', list, json(problem, 400, 'application/problem+json'));
      await expect(
        assertMatchesContract('GET', 'http://127.0.0.1/health/live?verbose=1', json({ status: 'live' }, 200)),
      ).to.be.rejectedWith(/forbids this request/);
    });

    it('reads HEAD as its GET, and OPTIONS as the Allow of the methods described', async () => {
      await assertMatchesContract('HEAD', url, new Response(null, { status: 200 }));
      const options = (allow: string) => new Response(null, { status: 200, headers: { allow } });
      await assertMatchesContract('OPTIONS', url, options('HEAD, GET, PUT, DELETE'));
      await expect(assertMatchesContract('OPTIONS', url, options('HEAD, GET, PUT'))).to.be.rejectedWith(/Allow is/);
    });

    it('checks a problem+json body against the Problem schema too', async () => {
      const problem = (code: string) =>
        json(
          { type: 'about:blank', title: 'Not Found', status: 404, detail: '-', code },
          404,
          'application/problem+json',
        );
      await assertMatchesContract('GET', url, problem('PRODUCT_NOT_FOUND'));
      await expect(assertMatchesContract('GET', url, problem('NO_SUCH_CODE'))).to.be.rejectedWith(
        /does not match the schema/,
      );
    });

    it('rejects a field the description lacks, also where its schema says nothing of other fields', async () => {
      const live = 'http://127.0.0.1/health/live';
      await assertMatchesContract('GET', live, json({ status: 'live' }, 200));
      await expect(assertMatchesContract('GET', live, json({ status: 'live', uptime: 1 }, 200))).to.be.rejectedWith(
        /additionalProperty.*uptime/,
      );
    });

    it('rejects an undocumented status and a wrong content type', async () => {
      await expect(assertMatchesContract('GET', url, json({}, 418))).to.be.rejectedWith(/not documented/);
      await expect(assertMatchesContract('GET', url, json({ id: 1 }, 200, 'text/plain'))).to.be.rejectedWith(
        /content type/,
      );
    });
  });
});

describe('GET /swagger', () => {
  let api: ServiceUnderTest;
  before(async function () {
    api = await startServiceUnderTest('memory', this);
  });
  after(async () => api?.stop());

  const get = (path: string) => uncheckedFetch(`${api.service.url}${path}`, undefined, 'the page is no API operation');

  it('serves the interactive page, pointing only at this server', async () => {
    const response = await get('/swagger');
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/html/);
    const html = await response.text();
    expect(html).to.contain('Stock service API');
    expect(html).to.contain('"url":"/swagger/openapi.json"');
    expect(html).to.contain('"validatorUrl":null');
    // No CDN, no web fonts: every src and href is a path on this server.
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(references).to.have.length.greaterThan(2);
    for (const reference of references) expect(reference, reference).to.match(/^\/swagger\//);
    expect(html).not.to.match(/https?:\/\/(?!www\.w3\.org)/);
  });

  it('serves swagger-ui and its stylesheet from the installed package', async () => {
    const html = await (await get('/swagger')).text();
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    for (const reference of references) {
      const response = await get(reference);
      expect(response.status, reference).to.equal(200);
      expect((await response.arrayBuffer()).byteLength, reference).to.be.greaterThan(500);
    }
    const css = references.find((r) => r.endsWith('.css'))!;
    expect(await (await get(css)).text()).to.contain('.swagger-ui');
    expect((await get(css)).headers.get('content-type')).to.match(/^text\/css/);
  });

  it('serves the description as YAML and JSON', async () => {
    const yaml = await get('/swagger/openapi.yaml');
    expect(yaml.headers.get('content-type')).to.match(/^application\/yaml/);
    expect(await yaml.text()).to.contain('openapi: 3.1.0');
    const json = await get('/swagger/openapi.json');
    expect(await json.json()).to.deep.equal(openApiDocument);
  });

  it('answers 404 problem+json for an unknown asset, also one named like a property every object has', async () => {
    for (const name of ['evil.js', '__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty']) {
      const response = await get(`/swagger/assets/1.0.0/${name}`);
      expect(response.status, name).to.equal(404);
      expect(response.headers.get('content-type'), name).to.equal('application/problem+json');
      expect(await response.json(), name).to.include({ code: 'ROUTE_NOT_FOUND' });
    }
    expect(api.logs.filter((line) => line.level === 'error')).to.deep.equal([]);
  });

  it('answers 405 METHOD_NOT_ALLOWED with Allow: GET, HEAD to other methods on the page and under it', async () => {
    for (const [method, path] of [
      ['POST', '/swagger'],
      ['DELETE', '/swagger/openapi.yaml'],
      ['PUT', '/swagger/assets/1.0.0/favicon.png'],
    ]) {
      const response = await checkedFetch(`${api.service.url}${path}`, { method });
      expect(response.status, `${method} ${path}`).to.equal(405);
      expect(response.headers.get('allow'), `${method} ${path}`).to.equal('GET, HEAD');
      expect(response.headers.get('content-type')).to.equal('application/problem+json');
      expect(await response.json()).to.include({ code: 'METHOD_NOT_ALLOWED', status: 405, instance: path });
    }
  });
});
