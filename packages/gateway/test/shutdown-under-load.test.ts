import { type ServiceProcess, startServiceProcess } from '@platform/test-kit';
import { expect } from 'chai';
import http from 'node:http';
import { join } from 'node:path';
import { echo, startUpstream, type TestUpstream } from './support';

const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');

/**
 * The gateway as main runs it, in a process of its own, in front of one small
 * upstream for every service, with the default shutdown settings and no rate
 * limit (all the load comes from one address).
 */
function startGatewayProcess(upstream: TestUpstream): ServiceProcess {
  return startServiceProcess(MAIN, { STOCK_URL: upstream.url, SALES_URL: upstream.url, IDENTITY_URL: upstream.url, METRICS_PORT: '0', RATE_LIMIT_PER_MINUTE: '0', AUTH_ISSUER: undefined });
}

describe('the gateway stopping under load', function () {
  this.timeout(60_000);
  let upstream: TestUpstream;
  let gateway: ServiceProcess | undefined;
  beforeEach(async () => {
    upstream = await startUpstream(echo('stock'));
  });
  afterEach(async () => {
    await gateway?.stop('SIGKILL');
    gateway = undefined;
    await upstream.kill();
  });

  it('fails no request of keep-alive clients behind a balancer that follows its readiness when SIGTERM arrives', async () => {
    gateway = startGatewayProcess(upstream);
    const port = await gateway.port();
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
          gateway!.child.kill('SIGTERM');
        }
      }
    });
    await Promise.all([watcher, ...clients]);
    agent.destroy();
    expect(signalled, 'SIGTERM was sent mid-load').to.equal(true);
    expect(sent).to.be.greaterThan(100);
    expect(failures).to.deep.equal([]);
    expect(await gateway.exited).to.equal(0);
  });

  it('cuts no request of 32 keep-alive clients that call it directly through a SIGTERM: each is answered, or refused a new connection once it stops accepting', async () => {
    gateway = startGatewayProcess(upstream);
    const port = await gateway.port();
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
    // No balancer and no readiness: each client sends until the gateway refuses it a connection (or 3000 requests, a bound).
    const clients = Array.from({ length: 32 }, async () => {
      for (let i = 0; i < 3000; i++) {
        const outcome = await get();
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        if (outcome === 'ECONNREFUSED') return;
        if (outcome !== 'status 200') continue;
        if (signalled) answeredAfterSignal += 1;
        else if (++answered === 1000) {
          signalled = true;
          gateway!.child.kill('SIGTERM');
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
    expect(await gateway.exited).to.equal(0);
  });
});
