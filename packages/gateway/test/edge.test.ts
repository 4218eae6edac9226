import { eventually, freezableProxy } from '@platform/test-kit';
import {
  callWith,
  decodePart,
  forgedToken,
  type IdentityUnderTest,
  SALES,
  STOCK,
  scratchFolder,
  startIdentity,
  tokenChecksContract,
} from '@commerce/identity/testing';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { addressKey } from '../src';
import {
  deadPort,
  echo,
  type GatewayUnderTest,
  startTestGateway,
  startUpstream,
  type TestUpstream,
  upstreams,
} from './support';

const REDIS_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';
/** In CI (or with REQUIRE_REDIS=1) a missing Redis fails the run instead of skipping. */
const redisRequired = process.env.REQUIRE_REDIS === '1' || process.env.CI === 'true';

tokenChecksContract('the gateway at the edge', { scopes: false }, async (identity) => {
  const upstream = await startUpstream(echo('stock'));
  const gateway = await startTestGateway({
    ...upstreams([upstream.url], upstream.url),
    authIssuer: identity.service.issuer,
  });
  return {
    call: (token) => callWith(`${gateway.url}/api/products`, token),
    good: { client: 'inventory-sync', audience: STOCK, scope: 'stock:read' },
    close: async () => {
      await gateway.stop();
      await upstream.kill();
    },
  };
});

describe('the gateway checking tokens', function () {
  this.timeout(30_000);
  let files: ReturnType<typeof scratchFolder>;
  let identity: IdentityUnderTest;
  let upstream: TestUpstream;
  let gateway: GatewayUnderTest;

  before(async () => {
    files = scratchFolder();
    identity = await startIdentity(files);
    upstream = await startUpstream(echo('any'));
    gateway = await startTestGateway({
      ...upstreams([upstream.url], upstream.url),
      authIssuer: identity.service.issuer,
    });
  });
  after(async () => {
    await gateway?.stop();
    await upstream?.kill();
    await identity?.stop();
    files?.remove();
  });

  it('passes a token for either API, and the token itself, to the service', async () => {
    for (const [client, audience, path] of [
      ['inventory-sync', STOCK, '/api/products'],
      ['reporting', SALES, '/api/orders'],
    ] as const) {
      const token = await identity.token(client, audience);
      expect((await callWith(`${gateway.url}${path}`, token)).status).to.equal(200);
      expect(upstream.seen.at(-1)!.headers.authorization).to.equal(`Bearer ${token}`);
    }
  });

  it('refuses early: a request without a token never reaches the service', async () => {
    const before = upstream.seen.length;
    expect((await fetch(`${gateway.url}/api/orders`)).status).to.equal(401);
    expect(upstream.seen.length).to.equal(before);
  });

  it("lets the payment provider's webhook through without a token: its signature is sales' to check", async () => {
    const before = upstream.seen.length;
    const response = await fetch(`${gateway.url}/api/payment-events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=abc' },
      body: '{"id": "evt_1"}',
    });
    expect(response.status).to.equal(200);
    expect(upstream.seen.length).to.equal(before + 1);
    expect(upstream.seen.at(-1)!.headers).to.include({ 'stripe-signature': 't=1,v1=abc' });
    expect((await fetch(`${gateway.url}/api/payment-eventsx`)).status, 'only that path').to.equal(401);
  });

  it('refuses at the edge a token for an audience neither API has: the service never sees it', async () => {
    const claims = decodePart(await identity.token('inventory-sync', STOCK), 1);
    const before = upstream.seen.length;
    const response = await callWith(
      `${gateway.url}/api/products`,
      await forgedToken(identity.files.keysFile, claims, { aud: 'urn:commerce:billing' }),
    );
    expect(response.status).to.equal(401);
    expect(await response.json()).to.include({
      code: 'INVALID_TOKEN',
      detail: 'The access token is meant for another service.',
    });
    expect(upstream.seen.length).to.equal(before);
  });

  it('leaves the issuer, health and /swagger open, and the metrics listener', async () => {
    for (const path of ['/identity/token', '/health/live', '/health/ready', '/swagger'])
      expect((await fetch(`${gateway.url}${path}`)).status, path).to.equal(200);
    expect((await fetch(`${gateway.metricsUrl}/metrics`)).status).to.equal(200);
  });

  it('tells caches to keep none of its refusals, which depend on the token', async () => {
    const expired = await forgedToken(
      identity.files.keysFile,
      decodePart(await identity.token('inventory-sync', STOCK), 1),
      { exp: Math.floor(Date.now() / 1000) - 60 },
    );
    for (const token of [undefined, 'not-a-jwt', expired]) {
      const response = await callWith(`${gateway.url}/api/products`, token);
      expect(response.status, String(token)).to.equal(401);
      expect(response.headers.get('cache-control'), String(token)).to.equal('no-store');
    }
    // Its other answers depend on no token: they say nothing of caching.
    expect((await fetch(`${gateway.url}/nowhere`)).headers.get('cache-control')).to.equal(null);
  });

  it('tells caches to keep none of its 503 when the issuer’s keys cannot be had', async () => {
    const blind = await startTestGateway({
      ...upstreams([upstream.url], upstream.url),
      authIssuer: identity.service.issuer,
      authDiscoveryUrl: `${await deadPort()}/.well-known/openid-configuration`,
    });
    try {
      const response = await callWith(`${blind.url}/api/products`, await identity.token('inventory-sync', STOCK));
      expect(response.status).to.equal(503);
      expect(await response.json()).to.include({ code: 'AUTH_ISSUER_UNAVAILABLE' });
      expect(response.headers.get('cache-control')).to.equal('no-store');
    } finally {
      await blind.stop();
    }
  });
});

describe('the gateway’s rate limit', function () {
  this.timeout(30_000);
  let upstream: TestUpstream;
  before(async () => (upstream = await startUpstream(echo('stock'))));
  after(async () => upstream?.kill());

  const burst = async (url: string, count: number) => {
    const responses: Response[] = [];
    for (let i = 0; i < count; i++) responses.push(await fetch(`${url}/api/products`));
    return responses;
  };

  it('answers 429 with Retry-After beyond RATE_LIMIT_PER_MINUTE, counting in this process', async () => {
    const gateway = await startTestGateway({
      ...upstreams([upstream.url], upstream.url),
      rateLimitPerMinute: 5,
    });
    try {
      const before = upstream.seen.length;
      const responses = await burst(gateway.url, 8);
      expect(responses.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200, 429, 429, 429]);
      const refused = responses[5]!;
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
      expect(refused.headers.get('content-type')).to.equal('application/problem+json');
      expect(await refused.json()).to.include({ code: 'RATE_LIMITED', status: 429 });
      expect(upstream.seen.length - before, 'refused requests never reach the service').to.equal(5);
    } finally {
      await gateway.stop();
    }
  });

  it('counts requests without a token or with a bad one by address before refusing them, and a good token by its subject', async () => {
    const files = scratchFolder();
    const identity = await startIdentity(files);
    const gateway = await startTestGateway({
      ...upstreams([upstream.url], upstream.url),
      authIssuer: identity.service.issuer,
      rateLimitPerMinute: 3,
    });
    try {
      const call = (token?: string) => callWith(`${gateway.url}/api/products`, token);
      const before = upstream.seen.length;
      // One address, three requests a minute: two without a token and one with a bad one use them up.
      const flood = [await call(), await call('not-a-jwt'), await call(), await call('not-a-jwt'), await call()];
      expect(flood.map((r) => r.status)).to.deep.equal([401, 401, 401, 429, 429]);
      for (const refused of flood.slice(3)) {
        expect(refused.headers.get('content-type')).to.equal('application/problem+json');
        expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
        expect(await refused.json()).to.include({ code: 'RATE_LIMITED', status: 429 });
      }
      // From the same address, each good token's subject has a budget of its own.
      const sync = await identity.token('inventory-sync', STOCK);
      const own = [await call(sync), await call(sync), await call(sync), await call(sync)];
      expect(own.map((r) => r.status)).to.deep.equal([200, 200, 200, 429]);
      expect(own[3]!.headers.get('cache-control'), 'a 429 counted by the token’s subject').to.equal('no-store');
      expect((await call(await identity.token('checkout', STOCK))).status).to.equal(200);
      expect(upstream.seen.length - before, 'only the good tokens within their budget reach the service').to.equal(4);
    } finally {
      await gateway.stop();
      await identity.stop();
      files.remove();
    }
  });

  it('counts an IPv6 client by its /64, the block one subscriber holds, and an IPv4 one by its address', () => {
    expect(addressKey('2001:db8:1:2:3:4:5:6')).to.equal(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(addressKey('2001:db8:1:2::1')).to.equal(addressKey('2001:0db8:0001:0002:0000:0000:0000:0002'));
    expect(addressKey('2001:db8:1:2::1')).to.equal('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).not.to.equal(addressKey('2001:db8:1:2::1'));
    expect(addressKey('::1')).to.equal('::/64');
    expect(addressKey('fe80::1%eth0')).to.equal('fe80::/64');
    expect(addressKey('2001:db8::')).to.equal('2001:db8::/64');
    expect(addressKey('::ffff:192.0.2.7')).to.equal('192.0.2.7');
    expect(addressKey('192.0.2.7')).to.equal('192.0.2.7');
    expect(addressKey('192.0.2.8')).not.to.equal(addressKey('192.0.2.7'));
  });

  describe('shared in Redis', () => {
    let redis: Redis;
    before(async function () {
      redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
      try {
        await redis.connect();
      } catch (error) {
        if (redisRequired)
          throw new Error(`Redis is required but unreachable at ${REDIS_URL}: ${String(error)}`, { cause: error });
        console.warn(
          `  ! Redis unreachable at ${REDIS_URL}: skipping "${this.test?.parent?.fullTitle()}". Set REQUIRE_REDIS=1 to fail instead.`,
        );
        this.skip();
      }
    });
    after(async () => redis?.quit());

    it('counts the requests of every gateway instance together', async () => {
      // Redis database 15, emptied of the gateway's keys before and after: no other user of this Redis shares the
      // counts.
      const config = {
        ...upstreams([upstream.url], upstream.url),
        rateLimitPerMinute: 6,
        redisUrl: `${REDIS_URL}/${15}`,
      };
      await redis.select(15);
      const keysBefore = await redis.keys('gateway:rate:*');
      if (keysBefore.length > 0) await redis.del(...keysBefore);
      const [first, second] = [await startTestGateway(config), await startTestGateway(config)];
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) {
          statuses.push((await fetch(`${first.url}/api/products`)).status);
          statuses.push((await fetch(`${second.url}/api/products`)).status);
        }
        expect(statuses.filter((status) => status === 200)).to.have.length(6);
        expect(statuses.filter((status) => status === 429)).to.have.length(4);
        const refused = await fetch(`${first.url}/api/products`);
        expect(refused.status).to.equal(429);
        expect(refused.headers.get('content-type')).to.equal('application/problem+json');
        expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
        const keys = await redis.keys('gateway:rate:*');
        expect(keys).to.have.length(1);
        expect(keys[0]).to.match(/:ip:127\.0\.0\.1$/);
        expect(await redis.pttl(keys[0]!)).to.be.within(1, 60_000);
      } finally {
        await first.stop();
        await second.stop();
        const keys = await redis.keys('gateway:rate:*');
        if (keys.length > 0) await redis.del(...keys);
      }
    });

    it('counts in this process while Redis does not answer, and says so once', async () => {
      // A closed port on loopback: the real Redis goes on serving everybody else.
      const gateway = await startTestGateway({
        ...upstreams([upstream.url], upstream.url),
        rateLimitPerMinute: 2,
        redisUrl: 'redis://127.0.0.1:1',
      });
      try {
        const before = upstream.seen.length;
        const responses = await burst(gateway.url, 5);
        expect(responses.map((r) => r.status)).to.deep.equal([200, 200, 429, 429, 429]);
        expect(await responses[2]!.json()).to.include({ code: 'RATE_LIMITED' });
        expect(Number(responses[2]!.headers.get('retry-after'))).to.be.within(1, 60);
        expect(upstream.seen.length - before).to.equal(2);
        expect(
          gateway.logs.filter((line) => /redis/i.test(String(line.message))).map((line) => [line.level, line.message]),
        ).to.deep.equal([
          ['warn', 'Redis does not answer: the rate limit is counted in this process (per instance) until it does'],
        ]);
      } finally {
        await gateway.stop();
      }
    });

    it('goes back to Redis once it answers again, and says so once', async () => {
      const link = await freezableProxy(Number(new URL(REDIS_URL).port || 6379), new URL(REDIS_URL).hostname);
      await link.down();
      const gateway = await startTestGateway({
        ...upstreams([upstream.url], upstream.url),
        rateLimitPerMinute: 1000,
        redisUrl: `redis://127.0.0.1:${link.port}/15`,
      });
      try {
        await redis.select(15);
        const stale = await redis.keys('gateway:rate:*');
        if (stale.length > 0) await redis.del(...stale);
        expect((await burst(gateway.url, 3)).map((r) => r.status)).to.deep.equal([200, 200, 200]);
        expect(await redis.keys('gateway:rate:*'), 'counted in the process').to.deep.equal([]);
        await link.up();
        await eventually('the gateway to count in Redis again', 5_000, async () => {
          await burst(gateway.url, 1);
          return (await redis.keys('gateway:rate:*')).length === 1;
        });
        await burst(gateway.url, 3);
        expect(
          gateway.logs.filter((line) => /redis/i.test(String(line.message))).map((line) => line.message),
        ).to.deep.equal([
          'Redis does not answer: the rate limit is counted in this process (per instance) until it does',
          'Redis answers again: the rate limit is shared again',
        ]);
      } finally {
        await gateway.stop();
        await link.close();
        const keys = await redis.keys('gateway:rate:*');
        if (keys.length > 0) await redis.del(...keys);
      }
    });
  });
});
