import { type IdentityUnderTest, scratchFolder, startIdentity } from '@commerce/identity/testing';
import { freePort, rawHttpRequest } from '@platform/test-kit';
import { expect } from 'chai';
import { echo, type GatewayUnderTest, startTestGateway, startUpstream, type TestUpstream, upstreams } from './support';

const get = (gateway: GatewayUnderTest, path: string, host: string) =>
  rawHttpRequest(gateway.url, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);

/** Hosts a client may send: another site, one that would add parameters to Forwarded, one with a port. */
const CLAIMED = ['evil.example', 'x";for=6.6.6.6;by="y', 'x",for=6.6.6.6', 'evil.example:443'];

describe('the host the gateway tells the services', function () {
  this.timeout(30_000);
  let upstream: TestUpstream;
  before(async () => (upstream = await startUpstream(echo('any'))));
  after(async () => upstream?.kill());

  it('is PUBLIC_URL’s, with its scheme, whatever Host the client sends', async () => {
    const gateway = await startTestGateway({
      ...upstreams([upstream.url], upstream.url),
      publicUrl: 'https://api.example.test',
    });
    try {
      for (const host of CLAIMED) {
        expect((await get(gateway, '/api/products', host)).status, host).to.equal(200);
        const { headers } = upstream.seen.at(-1)!;
        expect(headers.forwarded, host).to.equal('for=127.0.0.1;host="api.example.test";proto=https');
        expect(headers, host).to.include({
          'x-forwarded-host': 'api.example.test',
          'x-forwarded-proto': 'https',
          'x-forwarded-for': '127.0.0.1',
        });
      }
    } finally {
      await gateway.stop();
    }
  });

  it('is the address the gateway listens on when PUBLIC_URL is not set', async () => {
    const gateway = await startTestGateway(upstreams([upstream.url], upstream.url));
    const own = new URL(gateway.url).host;
    try {
      for (const host of CLAIMED) {
        expect((await get(gateway, '/api/orders', host)).status, host).to.equal(200);
        const { headers } = upstream.seen.at(-1)!;
        expect(headers.forwarded, host).to.equal(`for=127.0.0.1;host="${own}";proto=http`);
        expect(headers, host).to.include({ 'x-forwarded-host': own, 'x-forwarded-proto': 'http' });
      }
    } finally {
      await gateway.stop();
    }
  });

  describe('to the issuer, which builds its URLs from it (TRUST_PROXY=true, as start:system runs it)', () => {
    let files: ReturnType<typeof scratchFolder>;
    let identity: IdentityUnderTest;
    let gateway: GatewayUnderTest;
    let publicUrl: string;

    before(async () => {
      files = scratchFolder();
      publicUrl = `http://127.0.0.1:${await freePort()}`;
      identity = await startIdentity(files, { issuer: `${publicUrl}/identity`, trustProxy: 'true' });
      gateway = await startTestGateway({
        port: Number(new URL(publicUrl).port),
        publicUrl,
        stockUrl: [upstream.url],
        salesUrl: [upstream.url],
        identityUrl: [identity.service.url],
      });
    });
    after(async () => {
      await gateway?.stop();
      await identity?.stop();
      files?.remove();
    });

    it('keeps the discovery document’s endpoints on the public origin, whatever Host the client sends', async () => {
      for (const host of CLAIMED) {
        const answer = await get(gateway, '/identity/.well-known/openid-configuration', host);
        expect(answer.status, host).to.equal(200);
        const discovery = JSON.parse(answer.body) as Record<string, unknown>;
        expect(discovery, host).to.include({
          issuer: `${publicUrl}/identity`,
          jwks_uri: `${publicUrl}/identity/jwks`,
          token_endpoint: `${publicUrl}/identity/token`,
        });
        expect(answer.body, host).not.to.include('evil.example');
        expect(answer.body, host).not.to.include('6.6.6.6');
      }
    });
  });
});
