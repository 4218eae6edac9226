import Router from '@koa/router';
import { DomainError, ValidationError } from '@platform/kernel';
import { expect } from 'chai';
import { createHttpApp, type HttpApp, jsonObjectBody, problemsFor } from '../src';
import { type Listening, listen, recordingLogger } from './support';

class Teapot extends DomainError<'TEAPOT'> {
  readonly code = 'TEAPOT';
  constructor() {
    super('I am a teapot.');
  }
}

describe('createHttpApp', () => {
  let ready = true;
  let http: HttpApp;
  let server: Listening;
  let log: ReturnType<typeof recordingLogger>;

  before(async () => {
    log = recordingLogger();
    http = createHttpApp({
      logger: log.logger,
      toProblem: problemsFor({ TEAPOT: 418 }, () => ({ spout: 'short' })),
      isReady: async () => ready,
    });
    const router = new Router({ prefix: '/api/things' });
    router.get('/teapot', () => {
      throw new Teapot();
    });
    router.get('/invalid', () => {
      throw new ValidationError({ size: ['must be small'] });
    });
    router.get('/broken', () => {
      throw new Error('secret cause');
    });
    router.post('/', jsonObjectBody('1kb'), (ctx) => {
      ctx.status = 201;
      ctx.body = ctx.request.body;
    });
    http.route(router);
    server = await listen(http.app);
  });
  after(async () => server?.close());

  const get = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);

  it('gives every response a request id (the client’s when it is sane), nosniff, and one access log line', async () => {
    const mine = await get('/api/things/teapot', { headers: { 'X-Request-Id': 'trace-1' } });
    expect(mine.headers.get('x-request-id')).to.equal('trace-1');
    expect(mine.headers.get('x-content-type-options')).to.equal('nosniff');
    const generated = await get('/nowhere', { headers: { 'X-Request-Id': 'not sane' } });
    expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const access = log.lines.filter((l) => l.message === 'request' && l.fields?.requestId === 'trace-1');
    expect(access).to.have.length(1);
    expect(access[0]!.fields).to.include({ method: 'GET', path: '/api/things/teapot', status: 418 });
  });

  it('answers a domain error with the status its code maps to, and the problem type’s extension members', async () => {
    const response = await get('/api/things/teapot');
    expect(response.status).to.equal(418);
    expect(response.headers.get('content-type')).to.equal('application/problem+json');
    expect(await response.json()).to.deep.equal({
      type: 'about:blank',
      title: "I'm a Teapot",
      status: 418,
      detail: 'I am a teapot.',
      code: 'TEAPOT',
      spout: 'short',
      instance: '/api/things/teapot',
    });
  });

  it('answers a ValidationError with 400 and the fields, and an unexpected error with a bare 500 it logs once', async () => {
    expect(await (await get('/api/things/invalid')).json())
      .to.include({ status: 400, code: 'VALIDATION_FAILED' })
      .and.deep.include({ errors: { size: ['must be small'] } });
    const broken = await get('/api/things/broken', { headers: { 'X-Request-Id': 'broken-1' } });
    expect(broken.status).to.equal(500);
    expect(await broken.text()).not.to.contain('secret cause');
    const logged = log.lines.filter((l) => l.level === 'error');
    expect(logged).to.have.length(1);
    expect(logged[0]!.fields).to.include({ requestId: 'broken-1', path: '/api/things/broken' });
    expect(String(logged[0]!.fields?.error)).to.contain('secret cause');
  });

  it('answers unknown routes with 404 and known routes with other methods with 405 and Allow', async () => {
    expect(await (await get('/api/nothing')).json()).to.include({ status: 404, code: 'ROUTE_NOT_FOUND' });
    const wrongMethod = await get('/api/things/teapot', { method: 'DELETE' });
    expect(wrongMethod.status).to.equal(405);
    expect(wrongMethod.headers.get('allow')).to.equal('HEAD, GET');
  });

  it('takes one JSON object body and refuses everything else with the matching problem', async () => {
    const post = (body: string | undefined, type = 'application/json') =>
      get('/api/things', { method: 'POST', headers: { 'content-type': type }, ...(body !== undefined && { body }) });
    expect((await post('{"a":1}')).status).to.equal(201);
    const codes = [];
    for (const [body, type] of [
      [undefined],
      ['{"a":'],
      ['[1]'],
      ['{"a":1}', 'text/plain'],
      [JSON.stringify({ a: 'x'.repeat(2000) })],
    ] as const) {
      codes.push(((await (await post(body, type)).json()) as { code: string }).code);
    }
    expect(codes).to.deep.equal([
      'BODY_REQUIRED',
      'MALFORMED_JSON',
      'BODY_NOT_AN_OBJECT',
      'UNSUPPORTED_MEDIA_TYPE',
      'PAYLOAD_TOO_LARGE',
    ]);
  });

  it('serves liveness, readiness from its check, and Prometheus metrics of the requests so far', async () => {
    expect(await (await get('/health/live')).json()).to.deep.equal({ status: 'live' });
    expect((await get('/health/ready')).status).to.equal(200);
    ready = false;
    const notReady = await get('/health/ready');
    ready = true;
    expect(notReady.status).to.equal(503);
    expect(await notReady.json()).to.include({ code: 'NOT_READY' });
    const metrics = await (await get('/metrics')).text();
    expect(metrics).to.match(/http_requests_total\{route="\/api\/things\/teapot",method="GET",status="418"\} \d+/);
    expect(metrics).to.contain('process_cpu_user_seconds_total');
  });

  it('logs health probes at debug, whatever they answer, and every other request at info', async () => {
    const probes = ['/health/live', '/health/ready', '/metrics', '/api/things/teapot'];
    ready = false;
    for (const path of probes) await get(path, { headers: { 'X-Request-Id': `probe-${path}` } });
    ready = true;
    const accessLine = (path: string) =>
      log.lines.find((l) => l.message === 'request' && l.fields?.requestId === `probe-${path}`);
    const levels = probes.map((path) => accessLine(path)?.level);
    expect(levels).to.deep.equal(['debug', 'debug', 'info', 'info']);
  });

  it('once draining, answers readiness 503 and keeps connections open: balancers stop routing, the requests that still come are served as before', async () => {
    http.drain();
    const response = await get('/health/ready');
    expect(response.status).to.equal(503);
    expect(response.headers.get('connection')).to.equal('keep-alive');
    const live = await get('/health/live');
    expect(live.status).to.equal(200);
    expect(live.headers.get('connection')).to.equal('keep-alive');
  });
});

describe('createHttpApp with a logger that writes warnings only', () => {
  it('builds no access line it would not write, yet answers the request id and counts the request', async () => {
    const log = recordingLogger();
    const asked: string[] = [];
    const http = createHttpApp({
      logger: { ...log.logger, isEnabled: (level) => (asked.push(level), level === 'warn' || level === 'error') },
      toProblem: () => undefined,
    });
    const router = new Router({ prefix: '/api/things' });
    router.get('/one', (ctx) => {
      ctx.body = { ok: true };
    });
    http.route(router);
    const server = await listen(http.app);
    try {
      for (const path of ['/api/things/one', '/health/live', '/api/things/one']) {
        const response = await fetch(`${server.url}${path}`, { headers: { 'X-Request-Id': 'quiet-1' } });
        expect(response.status).to.equal(200);
        expect(response.headers.get('x-request-id')).to.equal('quiet-1');
      }
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).to.match(/http_requests_total\{route="\/api\/things\/one",method="GET",status="200"\} 2\n/);
    } finally {
      await server.close();
    }
    expect(log.lines).to.deep.equal([]);
    // Asked once, when the app was made, not per request.
    expect(asked).to.deep.equal(['info', 'debug']);
  });
});

describe('createHttpApp routing by the start of the path', () => {
  let server: Listening;
  const seen: string[] = [];

  before(async () => {
    const http = createHttpApp({ logger: recordingLogger().logger, toProblem: () => undefined });
    const imports = new Router({ prefix: '/api/things/import' });
    imports.post('/', (ctx) => {
      ctx.body = { by: 'imports' };
    });
    const things = new Router({ prefix: '/api/things' });
    things.get('/:id', (ctx) => {
      ctx.body = { by: 'things', id: ctx.params.id };
    });
    // A parameter in the second segment: its routes may match any key.
    const sessions = new Router();
    sessions.get('/auth/:uid', (ctx) => {
      ctx.body = { by: 'sessions', uid: ctx.params.uid };
    });
    // A `use` without a path: the router may match any key, so it is in every chain, in its place.
    const watcher = new Router();
    watcher.use(async (ctx, next) => {
      seen.push(ctx.path);
      await next();
    });
    watcher.get('/api/watched', (ctx) => {
      ctx.body = { by: 'watcher' };
    });
    for (const router of [imports, things, sessions, watcher]) http.route(router);
    server = await listen(http.app);
  });
  after(async () => server?.close());

  const json = async (path: string, init?: RequestInit) => {
    const response = await fetch(`${server.url}${path}`, init);
    return { status: response.status, allow: response.headers.get('allow'), body: await response.text() };
  };

  it('finds a route whatever the case of the path, with or without a trailing slash, as the routers do', async () => {
    expect(await json('/API/Things/7')).to.include({ status: 200, body: '{"by":"things","id":"7"}' });
    expect(await json('/api/things/7/')).to.include({ status: 200, body: '{"by":"things","id":"7"}' });
    expect(await json('/api/things/import', { method: 'POST' })).to.include({ status: 200, body: '{"by":"imports"}' });
  });

  it('reaches routers whose routes may match any path, and a use without a path, in their place', async () => {
    expect(await json('/auth/abc')).to.include({ status: 200, body: '{"by":"sessions","uid":"abc"}' });
    seen.length = 0;
    expect(await json('/api/watched')).to.include({ status: 200, body: '{"by":"watcher"}' });
    // Paths no route of its has: @koa/router runs a router's use only for a route of its own, as before the table.
    expect((await json('/api/things/8/parts')).status).to.equal(404);
    expect((await json('/api/nothing/8')).status).to.equal(404);
    expect(seen).to.deep.equal(['/api/watched']);
  });

  it('answers 405 with Allow for a known path and another method, and 404 for a path no router has', async () => {
    expect(await json('/api/things/7', { method: 'DELETE' })).to.include({ status: 405, allow: 'HEAD, GET' });
    expect((await json('/api/elsewhere/7')).status).to.equal(404);
    expect((await json('/nowhere')).status).to.equal(404);
  });
});
