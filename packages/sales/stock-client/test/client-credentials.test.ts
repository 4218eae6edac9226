import {
  CLIENTS,
  decodePart,
  type IdentityUnderTest,
  STOCK,
  scratchFolder,
  startIdentity,
} from '@commerce/identity/testing';
import { UnavailableError } from '@platform/kernel';
import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
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
    new ClientCredentials({
      issuer: PUBLIC_ISSUER,
      discoveryUrl,
      clientId: checkout.clientId,
      clientSecret: checkout.clientSecret,
      resource: STOCK,
      scope: 'stock:read',
      now: () => clock,
      ...options,
    });

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
    expect(decodePart(token, 1)).to.include({
      iss: PUBLIC_ISSUER,
      aud: STOCK,
      sub: 'checkout',
      client_id: 'checkout',
      scope: 'stock:read',
    });
  });

  it('without AUTH_DISCOVERY_URL asks the issuer’s own address (here unreachable: a 503 for the caller, never a 500)', async () => {
    const error = await credentials({ discoveryUrl: undefined })
      .token()
      .catch((e: unknown) => e);
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

  describe('a token endpoint the discovery document names', () => {
    /** A server on 127.0.0.1 that answers every request with `answer` and keeps what it was sent. */
    async function recording(answer: (path: string) => [number, unknown]) {
      const requests: { method: string; path: string; authorization: string | undefined; body: string }[] = [];
      const server: Server = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString()));
        request.on('end', () => {
          requests.push({
            method: request.method!,
            path: request.url!,
            authorization: request.headers.authorization,
            body,
          });
          const [status, json] = answer(request.url!);
          response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
        });
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        requests,
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      };
    }
    const TOKEN = { access_token: 'a-token', token_type: 'Bearer', expires_in: 300 };
    let tokenEndpoint: string;
    let discovery: Awaited<ReturnType<typeof recording>>;
    let elsewhere: Awaited<ReturnType<typeof recording>>;
    before(async () => {
      discovery = await recording((path) =>
        path === '/.well-known/openid-configuration'
          ? [200, { issuer: PUBLIC_ISSUER, token_endpoint: tokenEndpoint }]
          : path === '/token'
            ? [200, TOKEN]
            : [404, {}],
      );
      elsewhere = await recording(() => [200, TOKEN]);
    });
    after(() => {
      discovery?.close();
      elsewhere?.close();
    });
    beforeEach(() => {
      discovery.requests.length = 0;
      elsewhere.requests.length = 0;
    });
    const fake = (options: Partial<ConstructorParameters<typeof ClientCredentials>[0]> = {}) =>
      credentials({ discoveryUrl: `${discovery.url}/.well-known/openid-configuration`, ...options });
    const refusal = (client: ClientCredentials) =>
      client.token().then(
        () => undefined,
        (error: unknown) => error as UnavailableError,
      );

    it('refuses one on neither the issuer’s origin nor the discovery URL’s (host, port or scheme): no request there, the secret is not sent, and the caller gets the discovery failure’s IDENTITY_UNAVAILABLE', async () => {
      const port = new URL(discovery.url).port;
      const client = fake();
      for (const named of [
        `${elsewhere.url}/token`,
        `http://localhost:${new URL(elsewhere.url).port}/token`,
        `https://127.0.0.1:${port}/token`,
        `http://localhost:${port}/token`,
        'http://evil.example/token',
      ]) {
        tokenEndpoint = named;
        const error = await refusal(client);
        expect(error, named)
          .to.be.instanceOf(UnavailableError)
          .and.include({ code: 'IDENTITY_UNAVAILABLE', retryAfterSeconds: 5 });
        expect(error?.message, named).to.equal(
          `No access token from the issuer ${PUBLIC_ISSUER}: its discovery document ${discovery.url}/.well-known/openid-configuration names the token endpoint ${named}, which is not on the origin of the issuer or of the discovery URL (http://127.0.0.1:9 or ${discovery.url}); the client secret is not sent there.`,
        );
      }
      expect(elsewhere.requests, 'nothing was sent to the other origin').to.deep.equal([]);
      expect(discovery.requests.map(({ method, path, authorization }) => [method, path, authorization])).to.deep.equal(
        Array.from({ length: 5 }, () => ['GET', '/.well-known/openid-configuration', undefined]),
      );

      // The same as any other discovery failure: an error of the same kind, and nothing kept, so the next token asks
      // discovery again.
      tokenEndpoint = undefined as unknown as string;
      const failed = await refusal(client);
      expect(failed)
        .to.be.instanceOf(UnavailableError)
        .and.include({ code: 'IDENTITY_UNAVAILABLE', retryAfterSeconds: 5 });
      expect(failed?.message).to.equal(
        `No access token from the issuer ${PUBLIC_ISSUER}: its discovery document ${discovery.url}/.well-known/openid-configuration names no usable token_endpoint.`,
      );
      tokenEndpoint = `${discovery.url}/token`;
      expect(await client.token(), 'once discovery names its own origin').to.equal('a-token');
      const sent = discovery.requests.at(-1)!;
      expect([sent.method, sent.path, sent.authorization]).to.deep.equal([
        'POST',
        '/token',
        `Basic ${Buffer.from(`${checkout.clientId}:${checkout.clientSecret}`).toString('base64')}`,
      ]);
      expect(elsewhere.requests).to.deep.equal([]);
    });

    it('sends the secret to a token endpoint on the issuer’s origin, though discovery is read elsewhere', async () => {
      tokenEndpoint = `${elsewhere.url}/token`;
      expect(await fake({ issuer: elsewhere.url }).token()).to.equal('a-token');
      expect(elsewhere.requests.map(({ method, path }) => [method, path])).to.deep.equal([['POST', '/token']]);
    });

    it('fails a product read the same way, through the catalog: IDENTITY_UNAVAILABLE, and nothing reaches stock', async () => {
      tokenEndpoint = `${elsewhere.url}/token`;
      const stock = await recording(() => [200, []]);
      const catalog = new HttpProductCatalog({ stockUrl: stock.url, credentials: fake() });
      try {
        const error = await catalog.quote([1]).then(
          () => undefined,
          (e: unknown) => e as UnavailableError,
        );
        expect(error).to.be.instanceOf(UnavailableError).and.include({ code: 'IDENTITY_UNAVAILABLE' });
        expect(stock.requests).to.deep.equal([]);
        expect(elsewhere.requests).to.deep.equal([]);
      } finally {
        await catalog.close();
        stock.close();
      }
    });
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
