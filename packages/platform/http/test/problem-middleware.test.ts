import { expect } from 'chai';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import sinon from 'sinon';
import { problem, problemMiddleware } from '../src';

class Teapot extends Error {}

async function serve(handler: Koa.Middleware, logUnexpected = sinon.spy()) {
  const app = new Koa();
  app.silent = true;
  app.use(
    problemMiddleware({
      toProblem: (e) => (e instanceof Teapot ? problem(418, 'TEAPOT', 'short and stout') : undefined),
      logUnexpected,
    }),
  );
  app.use(handler);
  const server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { get: (path = '/x') => fetch(`${url}${path}`), logUnexpected, close: () => server.close() };
}

describe('problemMiddleware', () => {
  it('answers a known error with its problem, and drops headers set before the throw', async () => {
    const app = await serve((ctx) => {
      ctx.set('Location', '/somewhere');
      throw new Teapot();
    });
    try {
      const response = await app.get('/brew');
      expect(response.status).to.equal(418);
      expect(response.headers.get('location')).to.equal(null);
      expect(response.headers.get('content-type')).to.equal('application/problem+json');
      expect(await response.json()).to.deep.equal({
        type: 'about:blank',
        title: "I'm a Teapot",
        status: 418,
        detail: 'short and stout',
        code: 'TEAPOT',
        instance: '/brew',
      });
    } finally {
      app.close();
    }
  });

  it('answers an unplanned error with a bare 500 and logs it once', async () => {
    const app = await serve(() => {
      throw new Error('secret detail');
    });
    try {
      const response = await app.get();
      expect(response.status).to.equal(500);
      const text = await response.text();
      expect(text).not.to.contain('secret');
      expect(JSON.parse(text)).to.include({ code: 'INTERNAL_ERROR', status: 500 });
      sinon.assert.calledOnce(app.logUnexpected);
    } finally {
      app.close();
    }
  });

  it('passes an exposed http-errors 4xx through with its message', async () => {
    const app = await serve((ctx) => ctx.throw(409, 'already there'));
    try {
      const response = await app.get();
      expect(response.status).to.equal(409);
      expect(await response.json()).to.include({ code: 'BAD_REQUEST', detail: 'already there' });
      sinon.assert.notCalled(app.logUnexpected);
    } finally {
      app.close();
    }
  });

  it('turns a bare 404 into a problem and leaves real bodies alone', async () => {
    const app = await serve((ctx) => {
      if (ctx.path === '/ok') ctx.body = { fine: true };
    });
    try {
      expect(await (await app.get('/ok')).json()).to.deep.equal({ fine: true });
      const missing = await app.get('/missing');
      expect(missing.status).to.equal(404);
      expect(await missing.json()).to.include({ code: 'ROUTE_NOT_FOUND' });
    } finally {
      app.close();
    }
  });
});
