import Router from '@koa/router';
import { expect } from 'chai';
import { createHttpApp, problemsFor, queryParameters } from '../src';
import { type Listening, listen, recordingLogger } from './support';

describe('queryParameters', () => {
  let server: Listening;

  before(async () => {
    const http = createHttpApp({ logger: recordingLogger().logger, toProblem: problemsFor({}) });
    const router = new Router({ prefix: '/api/things' });
    router.get('/', queryParameters('limit', 'after'), (ctx) => {
      ctx.body = { query: { ...ctx.query } };
    });
    router.get('/:id', queryParameters(), (ctx) => {
      ctx.body = { id: ctx.params.id };
    });
    http.route(router);
    server = await listen(http.app);
  });
  after(async () => server?.close());

  const get = async (path: string) => {
    const response = await fetch(`${server.url}${path}`);
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      body: (await response.json()) as Record<string, unknown>,
    };
  };

  it('lets the declared parameters through, to be decoded where they are used', async () => {
    expect(await get('/api/things?limit=2&after=x')).to.deep.include({
      status: 200,
      body: { query: { limit: '2', after: 'x' } },
    });
    expect(await get('/api/things/7')).to.deep.include({ status: 200, body: { id: '7' } });
    expect((await get('/api/things?')).status).to.equal(200);
    expect(await get('/api/things/7?')).to.deep.include({ status: 200, body: { id: '7' } });
  });

  it('refuses every other parameter, case-sensitively, naming each and what the operation takes', async () => {
    const { status, type, body } = await get('/api/things?Limit=10&limit=1&colour=red');
    expect(status).to.equal(400);
    expect(type).to.equal('application/problem+json');
    expect(body).to.include({ code: 'VALIDATION_FAILED' });
    expect(body.errors).to.deep.equal({
      Limit: ['is not a query parameter of this operation (limit, after)'],
      colour: ['is not a query parameter of this operation (limit, after)'],
    });
    expect((await get('/api/things/7?limit=1')).body.errors).to.deep.equal({
      limit: ['is not a query parameter of this operation (it takes none)'],
    });
  });

  it('names a parameter called __proto__ like any other', async () => {
    const { status, body } = await get('/api/things/7?__proto__=1');
    expect(status).to.equal(400);
    expect(Object.keys(body.errors as object)).to.deep.equal(['__proto__']);
  });
});
