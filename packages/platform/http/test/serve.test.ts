import Router from '@koa/router';
import { expect } from 'chai';
import http from 'node:http';
import { createHttpApp, listen, problemsFor, serve } from '../src';
import { recordingLogger } from './support';

const LISTEN = { port: 0, host: '127.0.0.1', requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 };
const OPTIONS = { shutdownDelayMs: 0, shutdownGraceMs: 5_000 };

/** GET on `agent`: the status, the Connection header, and whether the request went on a connection already used. */
function get(url: string, path: string, agent: http.Agent) {
  return new Promise<{ status: number; connection: string | undefined; reused: boolean }>((resolve, reject) => {
    const request = http.get(`${url}${path}`, { agent }, (response) =>
      response.resume().on('end', () =>
        resolve({
          status: response.statusCode!,
          connection: response.headers.connection,
          reused: request.reusedSocket,
        }),
      ),
    );
    request.on('error', reject);
  });
}

function slowApp(release: Promise<void>) {
  const http = createHttpApp({ logger: recordingLogger().logger, toProblem: problemsFor({}) });
  const router = new Router();
  router.get('/api/slow', async (ctx) => {
    await release;
    ctx.body = { done: true };
  });
  http.route(router);
  return http;
}

describe('serve', () => {
  it('lets a request in flight finish on close, asking its client to close the connection, then stops accepting', async () => {
    let release!: () => void;
    const server = serve(
      await listen(LISTEN),
      slowApp(new Promise<void>((resolve) => (release = resolve))),
      OPTIONS,
      recordingLogger().logger,
    );
    const inFlight = fetch(`${server.url}/api/slow`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = server.close();
    release();
    const response = await inFlight;
    expect(response.status).to.equal(200);
    expect(response.headers.get('connection')).to.equal('close');
    await closed;
    expect(
      await fetch(`${server.url}/health/live`).then(
        () => 'answered',
        () => 'refused',
      ),
    ).to.equal('refused');
  });

  it('cuts a request still running when the grace period is over, and says so', async () => {
    const log = recordingLogger();
    const server = serve(
      await listen(LISTEN),
      slowApp(new Promise<void>(() => {})),
      { ...OPTIONS, shutdownGraceMs: 100 },
      log.logger,
    );
    const stuck = fetch(`${server.url}/api/slow`).then(
      () => 'answered',
      () => 'cut',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.close();
    expect(await stuck).to.equal('cut');
    expect(log.lines.map((l) => l.message)).to.include('shutdown grace period over: closing the remaining connections');
  });

  it('keeps an idle keep-alive connection once it stops accepting, and answers the next request on it with Connection: close', async () => {
    const server = serve(await listen(LISTEN), slowApp(Promise.resolve()), OPTIONS, recordingLogger().logger);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await get(server.url, '/health/live', agent)).to.deep.equal({
        status: 200,
        connection: 'keep-alive',
        reused: false,
      });
      const closed = server.close();
      expect(server.server.listening, 'the listener is closed').to.equal(false);
      expect(
        await fetch(`${server.url}/health/live`).then(
          () => 'answered',
          () => 'refused',
        ),
      ).to.equal('refused');
      // A request its client sent on the idle connection as the server stopped: answered, not cut.
      expect(await get(server.url, '/api/slow', agent)).to.deep.equal({
        status: 200,
        connection: 'close',
        reused: true,
      });
      expect(await closed).to.equal(true);
    } finally {
      agent.destroy();
    }
  });

  it('closes connections still idle when the grace period is over without calling it a cut', async () => {
    const log = recordingLogger();
    const server = serve(
      await listen(LISTEN),
      slowApp(Promise.resolve()),
      { ...OPTIONS, shutdownGraceMs: 100 },
      log.logger,
    );
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await get(server.url, '/health/live', agent);
      const [socket] = Object.values(agent.freeSockets).flat();
      const socketClosed = new Promise((resolve) => socket!.once('close', resolve));
      expect(await server.close()).to.equal(true);
      await socketClosed;
      expect(log.lines.filter((l) => l.level === 'warn')).to.deep.equal([]);
    } finally {
      agent.destroy();
    }
  });
});
