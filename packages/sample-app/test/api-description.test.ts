import type Router from '@koa/router';
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import type Koa from 'koa';
import { SPEC_FILE, type SampleServer, startSampleServer } from './sample-server';
import { uncheckedFetch } from './checked-fetch';

interface OpenApi {
  openapi: string;
  servers: { url: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, { tags?: string[]; operationId?: string; responses: Record<string, unknown> }>>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The routers mounted on the app: @koa/router marks its dispatch middleware with `.router`. */
function routersOf(app: Koa): Router[] {
  return app.middleware.flatMap((middleware) => {
    const { router } = middleware as { router?: Router };
    return router ? [router] : [];
  });
}

describe('the API description', () => {
  let server: SampleServer;
  let description: OpenApi;
  before(async () => {
    server = await startSampleServer();
    description = (await (
      await uncheckedFetch(
        `${server.url}/swagger/openapi.json`,
        undefined,
        'the page and the description are no API operation',
      )
    ).json()) as OpenApi;
  });
  after(() => server.close());

  it('is a valid OpenAPI 3.1 description', async () => {
    const validator = new Validator();
    const result = await validator.validate(SPEC_FILE);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([]);
    expect(validator.version).to.equal('3.1');
  });

  it('serves the swagger page as HTML', async () => {
    const response = await uncheckedFetch(
      `${server.url}/swagger`,
      undefined,
      'the page and the description are no API operation',
    );
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/html/);
    expect(await response.text()).to.include('Sample app');
  });

  it('serves the description as OpenAPI 3.1 JSON, relative to this server', async () => {
    const response = await uncheckedFetch(
      `${server.url}/swagger/openapi.json`,
      undefined,
      'the page and the description are no API operation',
    );
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    expect(description.openapi).to.equal('3.1.0');
    expect(description.servers.map((server) => server.url)).to.deep.equal(['/']);
  });

  it('has the two tags, and tags each operation with exactly one of them, under a unique operationId', () => {
    const tagNames = description.tags.map((tag) => tag.name);
    expect(tagNames).to.deep.equal(['WeatherForecast', 'User']);
    const operations = Object.values(description.paths).flatMap((item) =>
      HTTP_METHODS.flatMap((method) => (item[method] ? [item[method]] : [])),
    );
    expect(operations).to.have.lengthOf(2);
    for (const operation of operations) {
      expect(operation.tags).to.have.lengthOf(1);
      expect(tagNames).to.include(operation.tags![0]);
      expect(operation.operationId).to.be.a('string').that.is.not.empty;
    }
    expect(new Set(operations.map((operation) => operation.operationId)).size).to.equal(operations.length);
  });

  it('describes every route the router serves, and nothing it does not', () => {
    const served = routersOf(server.app)
      .flatMap((router) => router.stack)
      .flatMap((layer) =>
        layer.methods
          .filter((method) => method !== 'HEAD')
          .map((method) => `${method} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`),
      );
    const described = Object.entries(description.paths).flatMap(([path, item]) =>
      HTTP_METHODS.filter((method) => method !== 'head' && item[method]).map(
        (method) => `${method.toUpperCase()} ${path}`,
      ),
    );
    expect(served).to.have.lengthOf.above(0);
    expect(served.sort()).to.deep.equal(described.sort());
  });
});
