import { eventually, rawHttpRequest } from '@platform/test-kit';
import { expect } from 'chai';
import net from 'node:net';
import {
  echo,
  type GatewayUnderTest,
  readinessChecks,
  startTestGateway,
  startUpstream,
  type TestUpstream,
  upstreams,
} from './support';

const UNREACHABLE = 'an upstream instance cannot be reached; it gets no traffic until it answers again';

/**
 * An upstream whose readiness is good HTTP and whose every other answer is not HTTP at all: a Content-Length that is no
 * number.
 */
async function startGarbledUpstream(): Promise<{ url: string; readonly answered: number; close(): Promise<void> }> {
  let answered = 0;
  const server = net.createServer((socket) => {
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      if (head.startsWith('GET /health/ready ')) {
        socket.end(
          'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 18\r\nConnection: close\r\n\r\n{"status":"ready"}',
        );
      } else {
        answered++;
        socket.end('HTTP/1.1 200 OK\r\nContent-Length: twelve\r\nConnection: close\r\n\r\n');
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    get answered() {
      return answered;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const raw = (gateway: GatewayUnderTest, method: string, target: string) =>
  rawHttpRequest(gateway.url, `${method} ${target} HTTP/1.1\r\nHost: gateway.test\r\nConnection: close\r\n\r\n`);

describe('what takes an upstream instance out of the gateway’s rotation', function () {
  this.timeout(30_000);
  let a: TestUpstream;
  let b: TestUpstream;
  let gateway: GatewayUnderTest;

  // Readiness is asked once, at start: what takes an instance out here is the request path alone, nothing brings it
  // back.
  beforeEach(async () => {
    [a, b] = await Promise.all([startUpstream(echo('a')), startUpstream(echo('b'))]);
    gateway = await startTestGateway({
      stockUrl: [a.url, b.url],
      salesUrl: [a.url, b.url],
      identityUrl: [a.url, b.url],
      upstreamCheckMs: 60_000,
    });
    await eventually('the first readiness checks', 5_000, () => a.readinessChecks >= 3 && b.readinessChecks >= 3);
  });
  afterEach(async () => {
    await gateway?.stop();
    await Promise.all([a, b].map((upstream) => upstream?.kill().catch(() => undefined)));
  });

  const everyInstanceReady = async () => {
    const checks = await readinessChecks(gateway);
    for (const service of ['stock', 'sales', 'identity']) {
      expect(checks, service).to.include({
        [service]: 'up',
        [`${service} ${a.url}`]: 'ready',
        [`${service} ${b.url}`]: 'ready',
      });
    }
  };

  it('answers 400 to a request target in absolute form, or any form but a path, forwards nothing, and keeps every instance in rotation', async () => {
    const targets: [string, string][] = [
      ['GET', 'HTTP://x/identity/jwks'],
      ['GET', 'http://x/identity/.well-known/openid-configuration'],
      ['GET', 'ftp://x/identity/jwks'],
      ['POST', 'https://evil.example/api/orders'],
      ['GET', `${gateway.url}/api/products/1`],
      ['GET', 'ftp://x/health/ready'],
      ['OPTIONS', '*'],
    ];
    // As the probe sent them, over and over: readiness is asked between every two.
    for (let round = 0; round < 3; round++) {
      for (const [method, target] of targets) {
        const answer = await raw(gateway, method, target);
        expect(answer.status, target).to.equal(400);
        expect(answer.headers['content-type'], target).to.equal('application/problem+json');
        expect(JSON.parse(answer.body), target).to.include({ status: 400, code: 'INVALID_REQUEST_TARGET' });
        expect((await fetch(`${gateway.url}/health/ready`)).status, `readiness after ${target}`).to.equal(200);
      }
    }
    expect([...a.seen, ...b.seen], 'nothing was forwarded').to.deep.equal([]);
    await everyInstanceReady();
    expect(
      gateway.logs.filter((line) => line.level === 'warn').map((line) => line.message),
      'no warning but the start’s',
    ).to.deep.equal(['tokens are not checked at the edge: AUTH_ISSUER is not set (the services may still check them)']);
    for (let i = 0; i < 4; i++) expect((await fetch(`${gateway.url}/identity/jwks`)).status).to.equal(200);
    expect([a.seen.length, b.seen.length], 'both still take turns').to.deep.equal([2, 2]);
  });

  it('keeps an instance that answers 5xx in rotation, and passes its answer on as it is', async () => {
    const failing = await startUpstream((request, response) => {
      if (request.url === '/health/ready') return void response.writeHead(200).end();
      response
        .writeHead(503, { 'content-type': 'application/problem+json' })
        .end('{"status":503,"code":"DATABASE_UNAVAILABLE"}');
    });
    const mixed = await startTestGateway({
      ...upstreams([failing.url, a.url], a.url),
      upstreamCheckMs: 60_000,
    });
    try {
      await eventually('the first readiness check', 5_000, () => failing.readinessChecks > 0);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await fetch(`${mixed.url}/api/products/${i}`)).status);
      expect(statuses).to.deep.equal([503, 200, 503, 200, 503, 200]);
      expect(failing.seen, 'each of its turns').to.have.length(3);
      expect(await readinessChecks(mixed)).to.include({ [`stock ${failing.url}`]: 'ready' });
      expect(mixed.logs.filter((line) => line.message === UNREACHABLE)).to.deep.equal([]);
    } finally {
      await mixed.stop();
      await failing.kill();
    }
  });

  it('keeps an instance whose answer is not valid HTTP in rotation: each GET it fails goes to the other, and the next comes back to it', async () => {
    const garbled = await startGarbledUpstream();
    const mixed = await startTestGateway({
      ...upstreams([garbled.url, a.url], a.url),
      upstreamCheckMs: 60_000,
    });
    try {
      await eventually(
        'the first readiness check',
        5_000,
        async () => (await readinessChecks(mixed))[`stock ${garbled.url}`] === 'ready',
      );
      const before = a.seen.length;
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await fetch(`${mixed.url}/api/products/${i}`)).status);
      // A GET may go again: each ends at the other instance, and the turn after that is the garbled one's again.
      expect(statuses).to.deep.equal(Array(6).fill(200));
      expect(a.seen.length - before).to.equal(6);
      expect(garbled.answered, 'still in rotation: every request tried it').to.equal(6);
      expect(await readinessChecks(mixed)).to.include({ [`stock ${garbled.url}`]: 'ready', stock: 'up' });
      expect(mixed.logs.filter((line) => line.message === UNREACHABLE)).to.deep.equal([]);
    } finally {
      await mixed.stop();
      await garbled.close();
    }
  });

  it('answers 502 when the only instance answers what is not HTTP, and keeps it: readiness stays 200', async () => {
    const garbled = await startGarbledUpstream();
    const alone = await startTestGateway({
      ...upstreams([garbled.url], a.url),
      upstreamCheckMs: 60_000,
    });
    try {
      await eventually(
        'the first readiness check',
        5_000,
        async () => (await readinessChecks(alone))[`stock ${garbled.url}`] === 'ready',
      );
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${alone.url}/api/products`);
        expect(response.status).to.equal(502);
        expect(await response.json()).to.include({ code: 'UPSTREAM_UNAVAILABLE' });
      }
      expect(garbled.answered).to.equal(3);
      expect((await fetch(`${alone.url}/health/ready`)).status).to.equal(200);
    } finally {
      await alone.stop();
      await garbled.close();
    }
  });

  it('still takes out at once an instance that refuses the connection, before its readiness is asked again', async () => {
    await b.kill();
    for (let i = 0; i < 4; i++) expect((await fetch(`${gateway.url}/api/products/${i}`)).status).to.equal(200);
    const checks = await readinessChecks(gateway);
    expect(checks).to.include({ stock: 'up', [`stock ${a.url}`]: 'ready', [`stock ${b.url}`]: 'not ready' });
    expect(gateway.logs.filter((line) => line.message === UNREACHABLE).map((line) => line.url)).to.deep.equal([b.url]);
  });
});
