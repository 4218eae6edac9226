import { eventually, freePort, startServiceProcess } from '@platform/test-kit';
import { expect } from 'chai';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { echo, type GatewayUnderTest, startTestGateway, startUpstream, type TestUpstream, upstreams } from './support';

const MAIN = join(import.meta.dirname, '..', 'src', 'main.ts');

describe('the gateway’s own endpoints: metrics, health and docs', function () {
  this.timeout(30_000);
  let upstream: TestUpstream;
  let gateway: GatewayUnderTest;

  before(async () => {
    upstream = await startUpstream(echo('any'));
    gateway = await startTestGateway(upstreams([upstream.url], upstream.url));
  });
  after(async () => {
    await gateway?.stop();
    await upstream?.kill();
  });

  it('serves /metrics on the metrics listener only: the public port answers 404', async () => {
    await fetch(`${gateway.url}/api/products`);
    const scraped = await fetch(`${gateway.metricsUrl}/metrics`);
    expect(scraped.status).to.equal(200);
    expect(scraped.headers.get('content-type')).to.match(/^text\/plain/);
    expect(await scraped.text()).to.match(
      /^http_requests_total\{route="\/api\/products\/\*\* → stock",method="GET",status="200"\} 1$/m,
    );
    const hidden = await fetch(`${gateway.url}/metrics`);
    expect(hidden.status).to.equal(404);
    expect(hidden.headers.get('content-type')).to.equal('application/problem+json');
    expect(await hidden.json()).to.include({ code: 'ROUTE_NOT_FOUND' });
    expect(new URL(gateway.metricsUrl).hostname, 'loopback').to.equal('127.0.0.1');
  });

  it('keeps public readiness to its status; the metrics listener’s names each instance', async () => {
    const ready = await fetch(`${gateway.url}/health/ready`);
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({ status: 'ready' });
    expect(await (await fetch(`${gateway.url}/health/live`)).json()).to.deep.equal({ status: 'live' });
    const detailed = (await (await fetch(`${gateway.metricsUrl}/health/ready`)).json()) as {
      status: string;
      checks: Record<string, string>;
    };
    expect(detailed).to.deep.include({ status: 'ready' });
    expect(detailed.checks).to.include({ stock: 'up', [`stock ${upstream.url}`]: 'ready' });
  });

  it('says nothing of the services behind it when it is not ready, on the public port', async () => {
    const gone = await startUpstream(echo('gone'));
    const lonely = await startTestGateway(upstreams([gone.url], upstream.url));
    try {
      await gone.kill();
      await eventually(
        'readiness to turn 503',
        5_000,
        async () => (await fetch(`${lonely.url}/health/ready`)).status === 503,
      );
      const refused = await fetch(`${lonely.url}/health/ready`);
      expect(refused.headers.get('content-type')).to.equal('application/problem+json');
      const text = await refused.text();
      expect(JSON.parse(text)).to.include({ status: 503, code: 'NOT_READY' });
      expect(JSON.parse(text)).not.to.have.property('checks');
      expect(text).not.to.include('127.0.0.1');
      const detailed = (await (await fetch(`${lonely.metricsUrl}/health/ready`)).json()) as {
        code: string;
        checks: Record<string, string>;
      };
      expect(detailed.code).to.equal('NOT_READY');
      expect(detailed.checks).to.include({ stock: 'down', [`stock ${gone.url}`]: 'not ready' });
    } finally {
      await lonely.stop();
    }
  });

  it('rate-limits everything it answers on the public port: health, docs, metrics, unknown paths, the issuer', async () => {
    const limited = await startTestGateway({
      ...upstreams([upstream.url], upstream.url),
      rateLimitPerMinute: 2,
    });
    try {
      expect((await fetch(`${limited.url}/health/ready`)).status).to.equal(200);
      expect((await fetch(`${limited.url}/health/live`)).status).to.equal(200);
      for (const path of [
        '/health/ready',
        '/health/live',
        '/swagger',
        '/swagger/stock.json',
        '/metrics',
        '/nowhere',
        '/identity/token',
        '/api/products',
      ]) {
        const response = await fetch(`${limited.url}${path}`);
        expect(response.status, path).to.equal(429);
        expect(response.headers.get('content-type'), path).to.equal('application/problem+json');
        expect(await response.json(), path).to.include({ code: 'RATE_LIMITED' });
      }
      // The metrics listener is the operators': not counted.
      for (let i = 0; i < 4; i++) {
        expect((await fetch(`${limited.metricsUrl}/metrics`)).status).to.equal(200);
        expect((await fetch(`${limited.metricsUrl}/health/ready`)).status).to.equal(200);
      }
    } finally {
      await limited.stop();
    }
  });
});

describe('the gateway’s METRICS_PORT as main reads it', function () {
  this.timeout(60_000);

  it('listens on loopback, on a free port when 0, and says where in its first line', async () => {
    const gateway = startServiceProcess(MAIN, { METRICS_PORT: '0', UPSTREAM_CHECK_MS: '60000' });
    try {
      const line = await gateway.listening();
      const metrics = String(line.metrics);
      expect(metrics).to.match(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect((await fetch(metrics)).status).to.equal(200);
    } finally {
      await gateway.stop('SIGINT');
    }
  });

  for (const [value, message] of [
    ['metrics', 'gateway failed to start: METRICS_PORT must be an integer from 0 to 65535, not "metrics".'],
    ['65536', 'gateway failed to start: METRICS_PORT must be an integer from 0 to 65535, not "65536".'],
    ['-1', 'gateway failed to start: METRICS_PORT must be an integer from 0 to 65535, not "-1".'],
  ]) {
    it(`refuses METRICS_PORT=${value} in one line, and exits 1`, async () => {
      const gateway = startServiceProcess(MAIN, { METRICS_PORT: value! });
      const exited = await Promise.race([gateway.exited, gateway.listening().then(() => 'listening')]);
      await gateway.stop('SIGKILL');
      expect(exited).to.equal(1);
      expect(gateway.stderr.filter(Boolean)).to.deep.equal([message]);
    });
  }

  it('refuses a METRICS_PORT in use in one line naming it, and exits 1', async () => {
    const taken = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
    try {
      const gateway = startServiceProcess(MAIN, { METRICS_PORT: String(port) });
      const exited = await Promise.race([gateway.exited, gateway.listening().then(() => 'listening')]);
      await gateway.stop('SIGKILL');
      expect(exited).to.equal(1);
      expect(gateway.stderr.filter(Boolean)).to.deep.equal([
        `gateway failed to start: Cannot listen on 127.0.0.1:${port} (METRICS_PORT): it is already in use. Set METRICS_PORT to another port, or 0 for a free one.`,
      ]);
    } finally {
      taken.close();
    }
  });
});
