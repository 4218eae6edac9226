import Router from '@koa/router';
import { ValidationError } from '@platform/kernel';
import { expect } from 'chai';
import { authenticate, createHttpApp, InvalidTokenError, problemsFor, requireScope, type TokenVerifier } from '../src';
import { type Listening, listen, recordingLogger } from './support';

/** Tokens named after what they stand for: `reader` holds things:read, anything else is refused. */
const verifier: TokenVerifier = {
  async verify(token) {
    if (token === 'reader') return { subject: 'reader', clientId: 'reader', scopes: ['things:read'] };
    throw new InvalidTokenError('The access token is malformed.');
  },
};

describe('Cache-Control: no-store on answers that depend on the access token', () => {
  let server: Listening;
  before(async () => {
    const { logger } = recordingLogger();
    const http = createHttpApp({ logger, toProblem: problemsFor<never>({}) });
    const router = new Router({ prefix: '/api' });
    router.use(authenticate(verifier));
    router.get('/things/1', requireScope('things:read'), (ctx) => {
      ctx.set('ETag', '"3"');
      if (ctx.get('If-None-Match') === '"3"') {
        ctx.status = 304;
        return;
      }
      ctx.body = { id: 1 };
    });
    router.get('/things/bad', requireScope('things:read'), () => {
      throw new ValidationError({ id: ['must be a number'] });
    });
    router.post('/things', requireScope('things:write'), (ctx) => {
      ctx.status = 201;
    });
    http.route(router);
    server = await listen(http.app);
  });
  after(async () => server?.close());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });
  const reader = { authorization: 'Bearer reader' };

  it('marks a 200 no-store, and leaves its ETag and the 304 of a conditional GET working', async () => {
    const ok = await get('/api/things/1', reader);
    expect([ok.status, ok.headers.get('cache-control'), ok.headers.get('etag')]).to.deep.equal([
      200,
      'no-store',
      '"3"',
    ]);
    const notModified = await get('/api/things/1', { ...reader, 'if-none-match': '"3"' });
    expect([
      notModified.status,
      notModified.headers.get('cache-control'),
      notModified.headers.get('etag'),
    ]).to.deep.equal([304, 'no-store', '"3"']);
  });

  it('marks the problems a verified caller gets no-store: a 400 thrown by the route, a 403 for a scope its token lacks', async () => {
    for (const [method, path, status] of [
      ['GET', '/api/things/bad', 400],
      ['POST', '/api/things', 403],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, { method, headers: reader });
      expect([response.status, response.headers.get('cache-control')], `${method} ${path}`).to.deep.equal([
        status,
        'no-store',
      ]);
    }
  });

  it('leaves answers that no token decided alone: no token, a refused one, a route that is not there, health', async () => {
    for (const [method, path, headers, status] of [
      ['GET', '/api/things/1', {}, 401],
      ['GET', '/api/things/1', { authorization: 'Bearer forged' }, 401],
      ['GET', '/api/nothing', reader, 404],
      ['DELETE', '/api/things/1', reader, 405],
      ['GET', '/health/live', reader, 200],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, { method, headers });
      expect([response.status, response.headers.get('cache-control')], `${method} ${path}`).to.deep.equal([
        status,
        null,
      ]);
    }
  });
});
