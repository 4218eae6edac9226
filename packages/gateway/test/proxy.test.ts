import { eventually } from '@platform/test-kit';
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { UNANSWERED_PROBES_TO_OUT } from '../src/upstream-group';
import {
  breaksConnections,
  deadPort,
  echo,
  type GatewayUnderTest,
  readinessChecks,
  startTestGateway,
  startUpstream,
  type TestUpstream,
  upstreams,
} from './support';

describe('the gateway in front of the services', function () {
  this.timeout(30_000);
  let stock: TestUpstream;
  let sales: TestUpstream;
  let identity: TestUpstream;
  let gateway: GatewayUnderTest;

  before(async () => {
    [stock, sales, identity] = await Promise.all([
      startUpstream(echo('stock')),
      startUpstream(echo('sales')),
      startUpstream(echo('identity')),
    ]);
    gateway = await startTestGateway({ stockUrl: [stock.url], salesUrl: [sales.url], identityUrl: [identity.url] });
  });
  after(async () => {
    await gateway?.stop();
    await Promise.all([stock, sales, identity].map((upstream) => upstream?.kill()));
  });

  it('routes each path to its service, query string and all, and nothing else', async () => {
    for (const [path, upstream] of [
      ['/api/products?limit=5', 'stock'],
      ['/api/products/7/stock-movements', 'stock'],
      ['/api/reservations/abc/commit', 'stock'],
      ['/api/product-imports/1', 'stock'],
      ['/api/locations', 'stock'],
      ['/api/stock-transfers/9/receive', 'stock'],
      ['/api/shipments?orderId=x', 'stock'],
      ['/api/returns/r1', 'stock'],
      ['/api/webhook-subscriptions', 'stock'],
      ['/api/orders', 'sales'],
      ['/api/orders/1/refunds', 'sales'],
      ['/api/payment-events', 'sales'],
      ['/identity/.well-known/openid-configuration', 'identity'],
    ]) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status, path).to.equal(200);
      expect(await response.json(), path).to.deep.equal({ upstream, path });
    }
    for (const path of ['/api/productsx', '/api/customers', '/identityx', '/elsewhere']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status, path).to.equal(404);
      expect(await response.json()).to.include({ code: 'ROUTE_NOT_FOUND' });
    }
  });

  it('carries the request id across the hop: the client’s when it sends one, else the gateway’s, the same on both sides', async () => {
    const given = await fetch(`${gateway.url}/api/products/1`, { headers: { 'x-request-id': 'trace-4711' } });
    expect(given.headers.get('x-request-id')).to.equal('trace-4711');
    expect(stock.seen.at(-1)!.headers['x-request-id']).to.equal('trace-4711');
    const made = await fetch(`${gateway.url}/api/products/1`);
    expect(made.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    expect(stock.seen.at(-1)!.headers['x-request-id']).to.equal(made.headers.get('x-request-id'));
    const logged = gateway.logs.filter((line) => line.message === 'request' && line.requestId === 'trace-4711');
    expect(logged).to.have.length(1);
  });

  it('says who the client is with Forwarded and X-Forwarded-*, replacing what a client claims', async () => {
    await fetch(`${gateway.url}/api/orders`, {
      headers: { forwarded: 'for=6.6.6.6', 'x-forwarded-for': '6.6.6.6', 'x-forwarded-host': 'evil.example' },
    });
    const { headers } = sales.seen.at(-1)!;
    const host = new URL(gateway.url).host;
    expect(headers.forwarded).to.equal(`for=127.0.0.1;host="${host}";proto=http`);
    expect(headers).to.include({
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-host': host,
      'x-forwarded-proto': 'http',
    });
  });

  it('strips hop-by-hop headers both ways, those the Connection header names too', async () => {
    const hopper = await startUpstream((_request, response) => {
      response
        .writeHead(200, {
          'content-type': 'text/plain',
          connection: 'x-upstream-hop',
          'x-upstream-hop': 'secret',
          'keep-alive': 'timeout=5',
          'x-end-to-end': 'kept',
        })
        .end('ok');
    });
    const hopping = await startTestGateway({
      stockUrl: [hopper.url],
      salesUrl: [sales.url],
      identityUrl: [identity.url],
    });
    try {
      const answer = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const request = http.request(
          `${hopping.url}/api/products`,
          {
            headers: {
              connection: 'keep-alive, x-client-hop',
              'x-client-hop': 'secret',
              te: 'trailers',
              'proxy-authorization': 'Basic eA==',
              'x-end-to-end': 'kept',
            },
          },
          resolve,
        );
        request.on('error', reject).end();
      });
      answer.resume();
      const { headers } = hopper.seen.at(-1)!;
      expect(headers).to.include({ 'x-end-to-end': 'kept' });
      for (const name of ['x-client-hop', 'te', 'proxy-authorization'])
        expect(headers, name).not.to.have.property(name);
      expect(answer.headers).to.include({ 'x-end-to-end': 'kept' });
      expect(answer.headers).not.to.have.property('x-upstream-hop');
    } finally {
      await hopping.stop();
      await hopper.kill();
    }
  });

  it('answers 502 UPSTREAM_UNAVAILABLE within a second when the service is down', async () => {
    const down = await startTestGateway({
      stockUrl: [await deadPort()],
      salesUrl: [sales.url],
      identityUrl: [identity.url],
    });
    try {
      const started = Date.now();
      const response = await fetch(`${down.url}/api/products/1`);
      expect(Date.now() - started).to.be.below(1_000);
      expect(response.status).to.equal(502);
      expect(response.headers.get('content-type')).to.equal('application/problem+json');
      expect(await response.json()).to.include({ code: 'UPSTREAM_UNAVAILABLE', status: 502 });
    } finally {
      await down.stop();
    }
  });

  it('answers 504 UPSTREAM_TIMEOUT when the service does not answer within UPSTREAM_TIMEOUT_MS, never hanging', async () => {
    const hung = await startUpstream((request, response) => {
      if (request.url === '/health/ready') response.writeHead(200).end();
      // Otherwise: never answers.
    });
    const waiting = await startTestGateway({
      stockUrl: [hung.url],
      salesUrl: [sales.url],
      identityUrl: [identity.url],
      upstreamTimeoutMs: 300,
    });
    try {
      const started = Date.now();
      const response = await fetch(`${waiting.url}/api/products/1`);
      const elapsed = Date.now() - started;
      expect(response.status).to.equal(504);
      expect(await response.json()).to.include({ code: 'UPSTREAM_TIMEOUT', status: 504 });
      expect(elapsed).to.be.at.least(300);
      expect(hung.seen, 'not retried elsewhere or again').to.have.length(1);
    } finally {
      await waiting.stop();
      await hung.kill();
    }
  });

  it('answers 504 when the body of a small answer stalls, never half an answer', async () => {
    const stalling = await startUpstream((request, response) => {
      if (request.url === '/health/ready') return void response.writeHead(200).end();
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"partial":');
      // The other 89 bytes never come.
    });
    const waiting = await startTestGateway({
      stockUrl: [stalling.url],
      salesUrl: [sales.url],
      identityUrl: [identity.url],
      upstreamTimeoutMs: 300,
    });
    try {
      const response = await fetch(`${waiting.url}/api/products/1`);
      expect(response.status).to.equal(504);
      expect(await response.json()).to.include({ code: 'UPSTREAM_TIMEOUT', status: 504 });
    } finally {
      await waiting.stop();
      await stalling.kill();
    }
  });

  it('passes answers of every size through whole, headers and all, read at once or streamed', async () => {
    for (const size of [0, 1, 64 * 1024, 64 * 1024 + 1, 1024 * 1024]) {
      const body = Buffer.alloc(size, 'x');
      const sized = await startUpstream((request, response) => {
        if (request.url === '/health/ready') return void response.writeHead(200).end();
        response
          .writeHead(201, {
            'content-type': 'application/octet-stream',
            'content-length': String(size),
            etag: `"${size}"`,
          })
          .end(body);
      });
      const passing = await startTestGateway({
        stockUrl: [sized.url],
        salesUrl: [sales.url],
        identityUrl: [identity.url],
      });
      try {
        const response = await fetch(`${passing.url}/api/products`);
        expect(response.status, `${size} bytes`).to.equal(201);
        expect(response.headers.get('etag')).to.equal(`"${size}"`);
        expect(response.headers.get('content-length')).to.equal(String(size));
        expect(Buffer.from(await response.arrayBuffer()).equals(body), `${size} bytes`).to.equal(true);
      } finally {
        await passing.stop();
        await sized.kill();
      }
    }
  });

  it('survives clients that go away at any moment of a streamed answer, and cancels the upstream request', async () => {
    let cancelled = 0;
    const slow = await startUpstream((request, response) => {
      if (request.url === '/health/ready') return void response.writeHead(200).end();
      response.on('close', () => {
        if (!response.writableFinished) cancelled++;
      });
      const delay = Number(new URL(request.url!, 'http://x').searchParams.get('delay'));
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => response.write('x'.repeat(1024)), 1);
        response.on('close', () => clearInterval(timer));
      }, delay);
    });
    const streaming = await startTestGateway({
      stockUrl: [slow.url],
      salesUrl: [sales.url],
      identityUrl: [identity.url],
    });
    try {
      const gone: Promise<unknown>[] = [];
      for (let i = 0; i < 40; i++) {
        const controller = new AbortController();
        // Half go away at once or nearly (before the gateway forwards, or while it waits for headers), half after the
        // first chunk.
        const early = i % 2 === 0;
        gone.push(
          fetch(`${streaming.url}/api/products?delay=${i % 4}`, { signal: controller.signal })
            .then(async (response) => {
              await response.body!.getReader().read();
              controller.abort();
            })
            .catch(() => undefined),
        );
        if (early) setTimeout(() => controller.abort(), i % 8);
      }
      await Promise.all(gone);
      expect(slow.seen.length, 'some reached the upstream').to.be.at.least(20);
      await eventually('every upstream request to be cancelled', 5_000, () => cancelled === slow.seen.length);
      expect((await fetch(`${streaming.url}/api/orders`)).status, 'still serving').to.equal(200);
      expect(
        streaming.logs.filter((entry) => entry.level === 'error'),
        "a client that goes away is not the gateway's error",
      ).to.deep.equal([]);
      const gave = streaming.logs
        .filter((entry) => entry.message === 'request' && entry.path === '/api/products')
        .map((entry) => entry.status);
      expect(gave, 'those gone before the answer are logged 499').to.include(499);
    } finally {
      await streaming.stop();
      await slow.kill();
    }
  });

  it('refuses a body over GATEWAY_BODY_LIMIT_BYTES with 413, declared or streamed, before the service takes it', async () => {
    const capped = await startTestGateway({
      stockUrl: [stock.url],
      salesUrl: [sales.url],
      identityUrl: [identity.url],
      bodyLimitBytes: 1024,
    });
    try {
      const before = sales.seen.length;
      const declared = await fetch(`${capped.url}/api/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: 'x'.repeat(2048),
      });
      expect(declared.status).to.equal(413);
      expect(await declared.json()).to.include({ code: 'PAYLOAD_TOO_LARGE' });
      const streamed = await fetch(`${capped.url}/api/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new ReadableStream({
          start(controller) {
            for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode('y'.repeat(512)));
            controller.close();
          },
        }),
        duplex: 'half',
      });
      expect(streamed.status).to.equal(413);
      expect(sales.seen.slice(before).filter((request) => request.body.length > 1024)).to.deep.equal([]);
      const small = await fetch(`${capped.url}/api/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"lines":[]}',
      });
      expect(small.status).to.equal(200);
      expect(sales.seen.at(-1)!.body).to.equal('{"lines":[]}');
    } finally {
      await capped.stop();
    }
  });

  it('streams a response through as it is written, and a request body as it is sent', async () => {
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    let sawFirstChunk!: () => void;
    const firstChunkArrived = new Promise<void>((resolve) => (sawFirstChunk = resolve));
    const server = http.createServer((request, response) => {
      if (request.url === '/health/ready') return void response.writeHead(200).end();
      if (request.method === 'POST') {
        request.once('data', () => sawFirstChunk());
        request.on('end', () => response.writeHead(200).end('received'));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('first ');
      void finished.then(() => response.end('last'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const streaming = await startTestGateway({ stockUrl: [url], salesUrl: [sales.url], identityUrl: [identity.url] });
    try {
      const response = await fetch(`${streaming.url}/api/products`);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      expect(
        new TextDecoder().decode((await reader.read()).value),
        'the first chunk, while the upstream is still writing',
      ).to.equal('first ');
      finish();
      let rest = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        rest += new TextDecoder().decode(chunk.value);
      expect(rest).to.equal('last');

      let sendSecond!: () => void;
      const secondMaySend = new Promise<void>((resolve) => (sendSecond = resolve));
      void firstChunkArrived.then(sendSecond);
      const upload = await fetch(`${streaming.url}/api/products`, {
        method: 'POST',
        body: new ReadableStream({
          async start(controller) {
            controller.enqueue(new TextEncoder().encode('part one;'));
            // The second part leaves only once the service has the first: the gateway did not wait for the whole body.
            await secondMaySend;
            controller.enqueue(new TextEncoder().encode('part two'));
            controller.close();
          },
        }),
        duplex: 'half',
      });
      expect(await upload.text()).to.equal('received');
    } finally {
      await streaming.stop();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('the gateway balancing the instances of a service', function () {
  this.timeout(30_000);
  let instances: TestUpstream[];
  let gateway: GatewayUnderTest;

  beforeEach(async () => {
    instances = await Promise.all([startUpstream(echo('stock a')), startUpstream(echo('stock b'))]);
    gateway = await startTestGateway({
      stockUrl: instances.map((i) => i.url),
      salesUrl: [instances[0]!.url],
      identityUrl: [instances[0]!.url],
    });
  });
  afterEach(async () => {
    await gateway?.stop();
    await Promise.all(instances.map((instance) => instance.kill().catch(() => undefined)));
  });

  const served = async (count: number, init: RequestInit = {}) => {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await fetch(`${gateway.url}/api/products/${i}`, init)).status);
    return statuses;
  };

  it('takes turns between them', async () => {
    expect(await served(10)).to.deep.equal(Array(10).fill(200));
    expect(instances.map((instance) => instance.seen.length)).to.deep.equal([5, 5]);
  });

  it('loses no request when one is killed, sends it nothing while it is down, and uses it again once it is back', async () => {
    await instances[1]!.kill();
    expect(await served(20)).to.deep.equal(Array(20).fill(200));
    const whileDown = instances[1]!.seen.length;
    expect(await served(10)).to.deep.equal(Array(10).fill(200));
    expect(instances[1]!.seen.length).to.equal(whileDown);
    await instances[1]!.revive();
    await eventually('the revived instance to get traffic again', 5_000, async () => {
      await served(2);
      return instances[1]!.seen.length > whileDown;
    });
  });

  it('retries on another instance a POST that could not connect, but not one whose connection broke after it left, unless it has an Idempotency-Key', async () => {
    await instances[1]!.kill();
    const refused = await served(4, { method: 'POST' });
    expect(refused, 'never sent: safe to send elsewhere').to.deep.equal([200, 200, 200, 200]);

    const breaker = await startUpstream(breaksConnections);
    const survivor = await startUpstream(echo('survivor'));
    const risky = await startTestGateway(upstreams([breaker.url, survivor.url], survivor.url));
    try {
      const outcomes: number[] = [];
      for (let i = 0; i < 4; i++)
        outcomes.push((await fetch(`${risky.url}/api/products`, { method: 'POST', body: '{}' })).status);
      expect(
        outcomes.filter((status) => status === 502),
        'a POST the breaker took is not sent again',
      ).to.have.length.greaterThan(0);
      const withKey = await fetch(`${risky.url}/api/products`, {
        method: 'POST',
        body: '{"a":1}',
        headers: { 'idempotency-key': 'k-1' },
      });
      expect(withKey.status).to.equal(200);
      expect(
        survivor.seen.filter((request) => request.headers['idempotency-key'] === 'k-1').map((request) => request.body),
      ).to.deep.equal(['{"a":1}']);
    } finally {
      await risky.stop();
      await Promise.all([breaker.kill(), survivor.kill()]);
    }
  });

  it('balances POSTs with a body when one instance died unnoticed: the connection is refused, so each goes once, whole, to the live one', async () => {
    const [live, dead] = await Promise.all([startUpstream(echo('live')), startUpstream(echo('dead'))]);
    // Readiness asked once, at start: the gateway learns of the death only from the refused connection.
    const unwatched = await startTestGateway({
      ...upstreams([live.url, dead.url], live.url),
      upstreamCheckMs: 60_000,
    });
    try {
      await eventually('the gateway’s first readiness check', 5_000, () => dead.readinessChecks > 0);
      await dead.kill();
      const bodies = Array.from({ length: 6 }, (_, i) => JSON.stringify({ name: `Lamp ${i}`, price: i + 1 }));
      const statuses: number[] = [];
      for (const body of bodies)
        statuses.push(
          (
            await fetch(`${unwatched.url}/api/products`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body,
            })
          ).status,
        );
      expect(statuses).to.deep.equal(Array(6).fill(200));
      expect(live.seen.map((request) => [request.method, request.body])).to.deep.equal(
        bodies.map((body) => ['POST', body]),
      );
      expect(
        unwatched.logs.filter(
          (line) =>
            line.message === 'an upstream instance cannot be reached; it gets no traffic until it answers again',
        ),
        'the dead one was tried',
      ).to.have.length(1);
    } finally {
      await unwatched.stop();
      await live.kill();
    }
  });

  it('never sends a POST twice: one whose connection broke after it left is a 502, and no other instance gets it', async () => {
    const breaker = await startUpstream(breaksConnections);
    const survivor = await startUpstream(echo('survivor'));
    const risky = await startTestGateway(upstreams([breaker.url, survivor.url], survivor.url));
    try {
      const bodies = Array.from({ length: 6 }, (_, i) => JSON.stringify({ order: i }));
      const outcomes = new Map<string, number>();
      for (const body of bodies)
        outcomes.set(
          body,
          (
            await fetch(`${risky.url}/api/products`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body,
            })
          ).status,
        );
      expect(
        [...outcomes.values()].filter((status) => status === 502),
        'the breaker took one at least',
      ).to.have.length.greaterThan(0);
      for (const body of bodies) {
        const taken = [...breaker.seen, ...survivor.seen].filter((request) => request.body === body).length;
        expect(taken, `${body}: applied at most once`).to.equal(1);
        const where = breaker.seen.some((request) => request.body === body) ? 502 : 200;
        expect(outcomes.get(body), `${body}: the answer says whether it may have been applied`).to.equal(where);
      }
    } finally {
      await risky.stop();
      await Promise.all([breaker.kill(), survivor.kill()]);
    }
  });

  it('takes an instance whose readiness answers 503 out of rotation while it is alive, and back once it answers 200', async () => {
    let ready = true;
    const draining = await startUpstream((request, response) => {
      if (request.url === '/health/ready') return void response.writeHead(ready ? 200 : 503).end();
      return echo('draining')(request, response, '');
    });
    const steady = await startUpstream(echo('steady'));
    const balanced = await startTestGateway(upstreams([draining.url, steady.url], steady.url));
    const sent = async (count: number) => {
      for (let i = 0; i < count; i++) expect((await fetch(`${balanced.url}/api/products/${i}`)).status).to.equal(200);
    };
    try {
      await sent(4);
      expect(draining.seen.length).to.equal(2);
      ready = false;
      await eventually(
        'readiness to show the instance not ready',
        5_000,
        async () => (await readinessChecks(balanced))[`stock ${draining.url}`] === 'not ready',
      );
      const whileNotReady = draining.seen.length;
      await sent(10);
      expect(draining.seen.length, 'no request while its readiness answers 503').to.equal(whileNotReady);
      ready = true;
      await eventually('the instance to get traffic again', 5_000, async () => {
        await sent(2);
        return draining.seen.length > whileNotReady;
      });
    } finally {
      await balanced.stop();
      await Promise.all([draining.kill(), steady.kill()]);
    }
  });

  it('keeps an instance whose readiness answers late for fewer than three probes in a row, and takes it out at the third', async () => {
    let unanswered = 0;
    const busy = await startUpstream((request, response) => {
      if (request.url !== '/health/ready') return echo('busy')(request, response, '');
      // An instance too busy to answer in time: the probe gives up on it (after 500 ms here).
      if (unanswered > 0) return void unanswered--;
      response.writeHead(200).end();
    });
    const steady = await startUpstream(echo('steady'));
    const balanced = await startTestGateway(upstreams([busy.url, steady.url], steady.url));
    const stateOfBusy = async () => (await readinessChecks(balanced))[`stock ${busy.url}`];
    try {
      await eventually('the first readiness check', 5_000, () => busy.readinessChecks > 0);
      unanswered = UNANSWERED_PROBES_TO_OUT - 1;
      const asked = busy.readinessChecks;
      await eventually(
        'the late probes and one answered after them',
        10_000,
        () => busy.readinessChecks >= asked + UNANSWERED_PROBES_TO_OUT,
      );
      expect(
        balanced.logs.filter((entry) => entry.url === busy.url),
        'never out of rotation',
      ).to.deep.equal([]);
      expect(await stateOfBusy()).to.equal('ready');
      unanswered = UNANSWERED_PROBES_TO_OUT;
      await eventually('the instance to be taken out', 10_000, async () => (await stateOfBusy()) === 'not ready');
      await eventually('the instance back once it answers', 10_000, async () => (await stateOfBusy()) === 'ready');
    } finally {
      await balanced.stop();
      await Promise.all([busy.kill(), steady.kill()]);
    }
  });

  it('reports each instance in readiness on the metrics listener, and is not ready while a service has none', async () => {
    const ready = await fetch(`${gateway.metricsUrl}/health/ready`);
    expect(ready.status).to.equal(200);
    expect(((await ready.json()) as { checks: Record<string, string> }).checks).to.include({
      stock: 'up',
      [`stock ${instances[0]!.url}`]: 'ready',
      [`stock ${instances[1]!.url}`]: 'ready',
    });
    await Promise.all(instances.map((instance) => instance.kill()));
    // Each service's instances are asked on their own schedule: wait until all three have noticed.
    let problem: { code?: string; checks?: Record<string, string> } = {};
    await eventually('readiness to name every service down', 5_000, async () => {
      const response = await fetch(`${gateway.metricsUrl}/health/ready`);
      problem = (await response.json()) as typeof problem;
      return (
        response.status === 503 &&
        problem.checks?.stock === 'down' &&
        problem.checks.sales === 'down' &&
        problem.checks.identity === 'down'
      );
    });
    expect(problem).to.include({ code: 'NOT_READY' });
    expect(problem.checks).to.include({
      [`stock ${instances[0]!.url}`]: 'not ready',
      [`stock ${instances[1]!.url}`]: 'not ready',
    });
  });
});
