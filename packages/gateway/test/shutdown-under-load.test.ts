import {
  callBehindReadinessThroughStop,
  expectServedThroughStop,
  type ServiceProcess,
  startServiceProcess,
} from '@platform/test-kit';
import { expect } from 'chai';
import { join } from 'node:path';
import { echo, startUpstream, type TestUpstream } from './support';

const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');

/**
 * The gateway as main runs it, in a process of its own, in front of one small
 * upstream for every service, with the default shutdown settings and no rate
 * limit (all the load comes from one address).
 */
function startGatewayProcess(upstream: TestUpstream): ServiceProcess {
  return startServiceProcess(MAIN, {
    STOCK_URL: upstream.url,
    SALES_URL: upstream.url,
    IDENTITY_URL: upstream.url,
    METRICS_PORT: '0',
    RATE_LIMIT_PER_MINUTE: '0',
    AUTH_ISSUER: undefined,
  });
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
    const { sent, stopped, failures } = await callBehindReadinessThroughStop({
      port,
      path: '/api/products?limit=5',
      stopAfter: 200,
      stop: () => gateway!.child.kill('SIGTERM'),
    });
    expect(stopped, 'SIGTERM was sent mid-load').to.equal(true);
    expect(sent).to.be.greaterThan(100);
    expect(failures).to.deep.equal([]);
    expect(await gateway.exited).to.equal(0);
  });

  it('cuts no request of 32 keep-alive clients that call it directly through a SIGTERM: each is answered, or refused a new connection once it stops accepting', async () => {
    gateway = startGatewayProcess(upstream);
    const port = await gateway.port();
    await expectServedThroughStop({
      port,
      path: '/api/products?limit=5',
      stopAfter: 1000,
      stop: () => gateway!.child.kill('SIGTERM'),
    });
    expect(await gateway.exited).to.equal(0);
  });
});
