import Router from '@koa/router';
import { expect } from 'chai';
import { createHttpApp, listen, problemsFor, serve } from '../src';
import { recordingLogger } from './support';

const LISTEN = { port: 0, host: '127.0.0.1', requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 };
const OPTIONS = { shutdownDelayMs: 0, shutdownGraceMs: 5_000 };

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
  it('lets a request in flight finish on close, then stops accepting', async () => {
    let release!: () => void;
    const server = serve(await listen(LISTEN), slowApp(new Promise<void>((resolve) => (release = resolve))), OPTIONS, recordingLogger().logger);
    const inFlight = fetch(`${server.url}/api/slow`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = server.close();
    release();
    expect((await inFlight).status).to.equal(200);
    await closed;
    expect(await fetch(`${server.url}/health/live`).then(() => 'answered', () => 'refused')).to.equal('refused');
  });

  it('cuts a request still running when the grace period is over, and says so', async () => {
    const log = recordingLogger();
    const server = serve(await listen(LISTEN), slowApp(new Promise<void>(() => {})), { ...OPTIONS, shutdownGraceMs: 100 }, log.logger);
    const stuck = fetch(`${server.url}/api/slow`).then(() => 'answered', () => 'cut');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.close();
    expect(await stuck).to.equal('cut');
    expect(log.lines.map((l) => l.message)).to.include('shutdown grace period over: closing the remaining connections');
  });
});
