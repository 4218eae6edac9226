import { expect } from 'chai';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { startProcess } from './process-support';

describe('stopping under load', function () {
  this.timeout(60_000);

  it('fails no request of clients on keep-alive connections when SIGTERM arrives, with the default settings', async () => {
    const service = startProcess({ DATABASE_URL: 'memory:' });
    const port = await service.port();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    const get = (path: string) =>
      new Promise<number>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path, agent }, (response) => response.resume().on('end', () => resolve(response.statusCode!))).on('error', reject);
      });
    // A load balancer's view: it stops sending new requests once readiness says 503.
    let routing = true;
    const watcher = (async () => {
      while (routing) {
        routing = (await get('/health/ready').catch(() => 503)) === 200;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    let sent = 0;
    let answered = 0;
    let signalled = false;
    const failures: string[] = [];
    const clients = Array.from({ length: 32 }, async () => {
      while (routing) {
        sent += 1;
        await get('/api/products?limit=5').then(
          (status) => (status === 200 ? (answered += 1) : failures.push(`status ${status}`)),
          (error: Error) => failures.push(error.message),
        );
        // Mid-load: once 200 requests were answered (a count, not a time, so that a slow machine sends as many).
        if (answered >= 200 && !signalled) {
          signalled = true;
          service.child.kill('SIGTERM');
        }
      }
    });
    await Promise.all([watcher, ...clients]);
    agent.destroy();
    expect(sent).to.be.greaterThan(100);
    expect(failures).to.deep.equal([]);
    expect(await service.exited).to.equal(0);
  });

  it('cuts no request of 32 keep-alive clients that call it directly through a SIGTERM: each is answered, or refused a new connection once the server stops accepting', async () => {
    const service = startProcess({ DATABASE_URL: 'memory:' });
    const port = await service.port();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    /** What became of each request: its status, or the error's code (ECONNREFUSED: a new connection refused, nothing sent). */
    const get = () =>
      new Promise<string>((resolve) => {
        http
          .get({ host: '127.0.0.1', port, path: '/api/products?limit=5', agent }, (response) => response.resume().on('end', () => resolve(`status ${response.statusCode}`)))
          .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      });
    const outcomes = new Map<string, number>();
    let answered = 0;
    let answeredAfterSignal = 0;
    let signalled = false;
    // No balancer and no readiness: each client sends until the server refuses it a connection (or 3000 requests, a bound).
    const clients = Array.from({ length: 32 }, async () => {
      for (let i = 0; i < 3000; i++) {
        const outcome = await get();
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        if (outcome === 'ECONNREFUSED') return;
        if (outcome !== 'status 200') continue;
        if (signalled) answeredAfterSignal += 1;
        else if (++answered === 1000) {
          signalled = true;
          service.child.kill('SIGTERM');
        }
      }
    });
    await Promise.all(clients);
    agent.destroy();
    expect(signalled, 'SIGTERM was sent mid-load').to.equal(true);
    const { 'status 200': ok = 0, ECONNREFUSED: refused = 0, ...failures } = Object.fromEntries(outcomes);
    expect(failures, 'every request was answered 200 or refused a new connection').to.deep.equal({});
    expect(refused, 'each client ended refused').to.equal(32);
    expect(ok).to.be.greaterThan(1000);
    expect(answeredAfterSignal, 'requests kept being answered after SIGTERM').to.be.greaterThan(0);
    expect(await service.exited).to.equal(0);
  });

  it('exits 0 on Ctrl-C under pnpm, without pnpm reporting a failure', async () => {
    const root = join(import.meta.dirname, '..', '..', '..', '..');
    // A terminal's Ctrl-C signals the whole foreground process group: pnpm and the service.
    const pnpm = spawn('pnpm', ['start'], { cwd: root, env: { ...process.env, PORT: '0', DATABASE_URL: 'memory:' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    pnpm.stdout!.on('data', (chunk: Buffer) => (output += String(chunk)));
    pnpm.stderr!.on('data', (chunk: Buffer) => (output += String(chunk)));
    const exited = new Promise<number | null>((resolve) => pnpm.once('exit', (code) => resolve(code)));
    for (let i = 0; i < 2400 && !output.includes('listening on'); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(output).to.contain('listening on');
    process.kill(-pnpm.pid!, 'SIGINT');
    expect(await exited).to.equal(0);
    expect(output).not.to.match(/ELIFECYCLE|Command failed/);
    expect(output).to.contain('"message":"stopped"');
  });
});
