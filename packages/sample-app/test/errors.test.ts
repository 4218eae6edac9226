import { expect } from 'chai';
import sinon from 'sinon';
import { type SampleServer, startSampleServer } from './sample-server';
import { checkedFetch, uncheckedFetch } from './checked-fetch';

async function problemOf(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get('content-type')).to.equal('application/problem+json');
  return (await response.json()) as Record<string, unknown>;
}

describe('errors', () => {
  let server: SampleServer;
  afterEach(() => server.close());

  describe('routing', () => {
    beforeEach(async () => {
      server = await startSampleServer();
    });

    it('answers 404 ROUTE_NOT_FOUND for an unknown path', async () => {
      const response = await checkedFetch(`${server.url}/nope`);
      expect(response.status).to.equal(404);
      expect(await problemOf(response)).to.deep.equal({
        type: 'about:blank',
        title: 'Not Found',
        status: 404,
        detail: 'No resource at /nope.',
        code: 'ROUTE_NOT_FOUND',
        instance: '/nope',
      });
    });

    it('answers 404 for an unknown path whatever the method', async () => {
      for (const method of ['POST', 'PATCH', 'PROPFIND']) {
        const response = await checkedFetch(`${server.url}/nope`, { method });
        expect(response.status, method).to.equal(404);
        expect(response.headers.get('allow'), method).to.equal(null);
        expect(await problemOf(response)).to.include({ code: 'ROUTE_NOT_FOUND' });
      }
    });

    it('answers 405 METHOD_NOT_ALLOWED with Allow for POST /weatherforecast', async () => {
      const response = await checkedFetch(`${server.url}/weatherforecast`, { method: 'POST' });
      expect(response.status).to.equal(405);
      expect(response.headers.get('allow')).to.equal('HEAD, GET');
      expect(await problemOf(response)).to.deep.equal({
        type: 'about:blank',
        title: 'Method Not Allowed',
        status: 405,
        detail: 'POST is not allowed on /weatherforecast; see the Allow header.',
        code: 'METHOD_NOT_ALLOWED',
        instance: '/weatherforecast',
      });
    });

    it('answers 405 also to methods the router does not implement at all', async () => {
      // The router itself says 501 to PROPFIND: for a client it is the same 405.
      for (const [method, path] of [
        ['PATCH', '/weatherforecast'],
        ['PROPFIND', '/weatherforecast'],
        ['DELETE', '/api/user/greet/Ada'],
        ['PUT', '/api/user/greet/Ada'],
      ] as const) {
        const response = await checkedFetch(`${server.url}${path}`, { method });
        expect(response.status, `${method} ${path}`).to.equal(405);
        expect(response.headers.get('allow'), `${method} ${path}`).to.equal('HEAD, GET');
        expect(await problemOf(response)).to.include({ code: 'METHOD_NOT_ALLOWED', status: 405 });
      }
    });

    it('answers 404 for a swagger asset named like a property every object has', async () => {
      for (const name of ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty']) {
        const response = await checkedFetch(`${server.url}/swagger/assets/1.0.0/${name}`);
        expect(response.status, name).to.equal(404);
        expect(await problemOf(response)).to.include({ code: 'ROUTE_NOT_FOUND' });
      }
    });

    it('answers 405 with Allow: GET, HEAD to other methods on /swagger and under it', async () => {
      for (const [method, path] of [
        ['POST', '/swagger'],
        ['DELETE', '/swagger/openapi.json'],
      ]) {
        const response = await checkedFetch(`${server.url}${path}`, { method });
        expect(response.status, `${method} ${path}`).to.equal(405);
        expect(response.headers.get('allow')).to.equal('GET, HEAD');
        expect(await problemOf(response)).to.include({ code: 'METHOD_NOT_ALLOWED', status: 405 });
      }
    });

    it('sends X-Content-Type-Options: nosniff with every answer, problems and /swagger included', async () => {
      const answers = [
        ['GET', '/weatherforecast', 200],
        ['GET', '/api/user/greet/Ada', 200],
        ['GET', '/api/user/greet/%E0%A4%A', 400],
        ['GET', '/nope', 404],
        ['POST', '/weatherforecast', 405],
        ['GET', '/swagger', 200],
        ['GET', '/swagger/openapi.json', 200],
        ['HEAD', '/weatherforecast', 200],
      ] as const;
      for (const [method, path, status] of answers) {
        const response = path.startsWith('/swagger')
          ? await uncheckedFetch(`${server.url}${path}`, { method }, 'the page is no API operation')
          : await checkedFetch(`${server.url}${path}`, { method });
        expect(response.status, `${method} ${path}`).to.equal(status);
        expect(response.headers.get('x-content-type-options'), `${method} ${path}`).to.equal('nosniff');
      }
    });

    it('answers HEAD like GET, without a body', async () => {
      const response = await checkedFetch(`${server.url}/weatherforecast`, { method: 'HEAD' });
      expect(response.status).to.equal(200);
      expect(await response.text()).to.equal('');
    });
  });

  describe('an unexpected failure', () => {
    let logged: sinon.SinonStub;
    beforeEach(() => {
      logged = sinon.stub(console, 'error');
    });
    afterEach(() => logged.restore());

    it('answers 500 INTERNAL_ERROR without its cause, and logs the cause once', async () => {
      server = await startSampleServer({
        random: () => {
          throw new Error('the dice fell off the table');
        },
      });
      const response = await checkedFetch(`${server.url}/weatherforecast`);

      expect(response.status).to.equal(500);
      const text = await response.clone().text();
      expect(await problemOf(response)).to.deep.equal({
        type: 'about:blank',
        title: 'Internal Server Error',
        status: 500,
        detail: 'The server failed to handle this request. It has been logged.',
        code: 'INTERNAL_ERROR',
        instance: '/weatherforecast',
      });
      expect(text).not.to.match(/dice|at forecastWeather|\.ts:/);
      expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
      sinon.assert.calledOnce(logged);
      expect(logged.firstCall.args[0]).to.include('the dice fell off the table').and.include('/weatherforecast');
    });
  });
});
