import { rawHttpRequest } from '@platform/test-kit';
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import sinon from 'sinon';
import { clientErrorHandler, createHttpApp, listen, problemsFor, type RunningServer, serve } from '../src';
import { recordingLogger } from './support';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectProblem(response: Awaited<ReturnType<typeof rawHttpRequest>>, status: number, code: string) {
  expect(response.status, response.body).to.equal(status);
  expect(response.headers).to.include({
    'content-type': 'application/problem+json',
    connection: 'close',
    'x-content-type-options': 'nosniff',
  });
  expect(response.headers['x-request-id']).to.match(UUID);
  expect(Number(response.headers['content-length'])).to.equal(Buffer.byteLength(response.body));
  const problem = JSON.parse(response.body) as Record<string, unknown>;
  expect(problem).to.include({ type: 'about:blank', status, code });
  expect(problem.title).to.be.a('string').and.not.be.empty;
  expect(problem.detail).to.be.a('string').and.not.be.empty;
}

describe('clientErrorHandler', () => {
  describe('installed by serve', () => {
    let server: RunningServer;
    const log = recordingLogger();
    before(async () => {
      const app = createHttpApp({ logger: log.logger, toProblem: problemsFor({}) });
      server = serve(
        await listen({ port: 0, host: '127.0.0.1', requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 }),
        app,
        { shutdownDelayMs: 0, shutdownGraceMs: 1_000 },
        log.logger,
      );
    });
    after(async () => server?.close({ immediate: true }));

    it('answers a request Node cannot parse with a 400 problem, a fresh request id, and a closed connection', async () => {
      for (const garbage of [
        'GARBAGE\r\n\r\n',
        'GET /\x00 HTTP/1.1\r\n\r\n',
        'GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
        'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n',
      ]) {
        expectProblem(await rawHttpRequest(server.url, garbage), 400, 'MALFORMED_REQUEST');
      }
      const logged = log.lines.filter((line) => line.message === 'request refused by the HTTP parser');
      expect(logged).to.have.length(4);
      expect(logged[0]!.fields).to.include({ status: 400, code: 'MALFORMED_REQUEST' });
      expect(logged[0]!.fields?.requestId).to.match(UUID);
    });

    it('answers headers larger than Node takes with a 431 problem', async () => {
      expectProblem(
        await rawHttpRequest(
          server.url,
          `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        ),
        431,
        'HEADERS_TOO_LARGE',
      );
    });

    it('still serves well-formed requests on other connections', async () => {
      expect((await fetch(`${server.url}/health/live`)).status).to.equal(200);
    });
  });

  it('answers headers that do not arrive in time with a 408 problem', async () => {
    // Node checks its timeouts every connectionsCheckingInterval: short ones make the test quick, not timed.
    const server = http.createServer(
      { headersTimeout: 100, requestTimeout: 100, connectionsCheckingInterval: 20 },
      (_request, response) => response.end(),
    );
    server.on('clientError', clientErrorHandler());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expectProblem(await rawHttpRequest(url, 'GET / HTTP/1.1\r\nHost: x\r\n'), 408, 'REQUEST_TIMEOUT');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  describe('on a connection it must not write to', () => {
    const fakeSocket = (state: { writable: boolean; headersSent?: boolean }) => ({
      writable: state.writable,
      end: sinon.spy(),
      destroy: sinon.spy(),
      ...(state.headersSent !== undefined && { _httpMessage: { headersSent: state.headersSent } }),
    });
    const failure = (code: string) => Object.assign(new Error(code), { code });

    it('only closes a connection the client reset, or that cannot be written', () => {
      for (const [error, socket] of [
        [failure('ECONNRESET'), fakeSocket({ writable: true })],
        [failure('HPE_INVALID_METHOD'), fakeSocket({ writable: false })],
      ] as const) {
        clientErrorHandler()(error, socket as unknown as Duplex);
        sinon.assert.notCalled(socket.end);
        sinon.assert.calledOnce(socket.destroy);
      }
    });

    it('does not write a second response into one whose headers are already sent', () => {
      const socket = fakeSocket({ writable: true, headersSent: true });
      clientErrorHandler()(failure('ERR_HTTP_REQUEST_TIMEOUT'), socket as unknown as Duplex);
      sinon.assert.notCalled(socket.end);
      sinon.assert.calledOnce(socket.destroy);
    });
  });
});
