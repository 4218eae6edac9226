import { CLIENTS, decodePart, type IdentityUnderTest, STOCK, scratchFolder, startIdentity } from '@commerce/identity-test-kit';
import { UnavailableError } from '@platform/kernel';
import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClientCredentials, HttpProductCatalog } from '../src';

/** Where tokens say they come from: a gateway that is not running, as when sales must not go through it. */
const PUBLIC_ISSUER = 'http://127.0.0.1:9/identity';
const checkout = CLIENTS.find((client) => client.clientId === 'checkout')!;

describe('ClientCredentials (sales’ own tokens for stock)', function () {
  this.timeout(20_000);
  let files: ReturnType<typeof scratchFolder>;
  let identity: IdentityUnderTest;
  let discoveryUrl: string;
  let clock: number;
  const issued = () => identity.logs.filter((line) => line.message === 'access token issued');
  const credentials = (options: Partial<ConstructorParameters<typeof ClientCredentials>[0]> = {}) =>
    new ClientCredentials({ issuer: PUBLIC_ISSUER, discoveryUrl, clientId: checkout.clientId, clientSecret: checkout.clientSecret, resource: STOCK, scope: 'stock:read', now: () => clock, ...options });

  before(async () => {
    files = scratchFolder();
    // Served under the public issuer's path, reached at its own address: how start:system runs it behind the gateway.
    identity = await startIdentity(files, { issuer: PUBLIC_ISSUER });
    discoveryUrl = `${identity.service.url}/identity/.well-known/openid-configuration`;
  });
  after(async () => {
    await identity?.stop();
    files?.remove();
  });
  beforeEach(() => (clock = Date.now()));

  it('finds the token endpoint at AUTH_DISCOVERY_URL, not at the issuer’s public address, and gets a token for stock as its own client', async () => {
    const token = await credentials().token();
    expect(decodePart(token, 1)).to.include({ iss: PUBLIC_ISSUER, aud: STOCK, sub: 'checkout', client_id: 'checkout', scope: 'stock:read' });
  });

  it('without AUTH_DISCOVERY_URL asks the issuer’s own address (here unreachable: a 503 for the caller, never a 500)', async () => {
    const error = await credentials({ discoveryUrl: undefined }).token().catch((e: unknown) => e);
    expect(error).to.be.instanceOf(UnavailableError).and.include({ code: 'IDENTITY_UNAVAILABLE' });
    expect((error as Error).message).to.include(`${PUBLIC_ISSUER}/.well-known/openid-configuration`);
  });

  it('keeps its token until 30 s before it expires, then gets a new one', async () => {
    const client = credentials();
    const before = issued().length;
    const first = await client.token();
    const { exp, iat } = decodePart(first, 1) as { exp: number; iat: number };
    const life = (exp - iat) * 1000;
    clock += life - 31_000;
    expect(await client.token(), 'a second before the renewal').to.equal(first);
    expect(issued().length - before).to.equal(1);
    clock += 2_000;
    const renewed = await client.token();
    expect(renewed).not.to.equal(first);
    expect(issued().length - before).to.equal(2);
    expect(await client.token()).to.equal(renewed);
  });

  it('asks the issuer once for callers that need a token at the same time', async () => {
    const client = credentials();
    const before = issued().length;
    const tokens = await Promise.all(Array.from({ length: 8 }, () => client.token()));
    expect(new Set(tokens).size).to.equal(1);
    expect(issued().length - before).to.equal(1);
  });

  it('gets a new token once stock refused the current one (invalidate), and only for that token', async () => {
    const client = credentials();
    const first = await client.token();
    client.invalidate('some other token');
    expect(await client.token()).to.equal(first);
    client.invalidate(first);
    expect(await client.token()).not.to.equal(first);
  });

  describe('what stock receives', () => {
    let seen: IncomingHttpHeaders[];
    let stock: ReturnType<typeof createServer>;
    let stockUrl: string;
    before(async () => {
      seen = [];
      stock = createServer((request, response) => {
        seen.push(request.headers);
        response.writeHead(200, { 'content-type': 'application/json' }).end('[{"id":1,"name":"Lamp","price":10}]');
      });
      stock.listen(0, '127.0.0.1');
      await once(stock, 'listening');
      stockUrl = `http://127.0.0.1:${(stock.address() as AddressInfo).port}`;
    });
    after(() => {
      stock.closeAllConnections();
      stock.close();
    });

    it('is sales’ own token for stock, the same one while it lasts: the catalog is given no caller’s token to pass on', async () => {
      const client = credentials({ now: Date.now });
      const catalog = new HttpProductCatalog({ stockUrl, credentials: client });
      try {
        await catalog.quote([1]);
        await catalog.quote([1, 2]);
        const own = await client.token();
        expect(seen.map((headers) => headers.authorization)).to.deep.equal([`Bearer ${own}`, `Bearer ${own}`]);
        expect(decodePart(own, 1)).to.include({ aud: STOCK, sub: 'checkout', client_id: 'checkout' });
      } finally {
        await catalog.close();
      }
    });
  });
});
