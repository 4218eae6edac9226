import { createTokenVerifier } from '@platform/http';
import { expect } from 'chai';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { rotateKeysFile } from '../src';
import {
  CLIENTS,
  decodePart,
  type IdentityUnderTest,
  kidsAt,
  requestToken,
  SALES,
  scratchFolder,
  STOCK,
  signingKeyOf,
  startIdentity,
  tokenFor,
} from '@commerce/identity/testing';

describe('the identity service', function () {
  let files: ReturnType<typeof scratchFolder>;
  let identity: IdentityUnderTest;
  let issuer = '';
  before(async () => {
    files = scratchFolder();
    identity = await startIdentity(files);
    issuer = identity.service.issuer;
  });
  after(async () => {
    await identity.stop();
    files.remove();
  });

  const [inventorySync, checkout, reporting] = CLIENTS as [
    (typeof CLIENTS)[0],
    (typeof CLIENTS)[0],
    (typeof CLIENTS)[0],
  ];

  it('publishes its metadata at {issuer}/.well-known/openid-configuration: the client credentials grant and the APIs’ scopes only', async () => {
    expect(issuer).to.equal(`http://127.0.0.1:${identity.service.port}`);
    const response = await fetch(`${issuer}/.well-known/openid-configuration`);
    expect(response.status).to.equal(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).to.include({ issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` });
    expect(metadata.grant_types_supported).to.deep.equal(['client_credentials']);
    expect(metadata.scopes_supported).to.deep.equal([
      'stock:read',
      'stock:write',
      'stock:reserve',
      'stock:fulfil',
      'webhooks:manage',
      'orders:read',
      'orders:write',
      'orders:admin',
      'orders:refund',
    ]);
    expect(metadata.token_endpoint_auth_methods_supported).to.deep.equal(['client_secret_basic', 'client_secret_post']);
    expect(metadata).not.to.have.property('authorization_endpoint');
  });

  it('publishes the public part of its keys, never the private one', async () => {
    const { keys } = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: Record<string, unknown>[] };
    const signing = signingKeyOf(files.keysFile);
    expect(keys).to.deep.equal([
      { kty: 'EC', crv: 'P-256', use: 'sig', alg: 'ES256', kid: signing.kid, x: signing.x, y: signing.y },
    ]);
  });

  for (const [resource, client, scope, expected] of [
    [STOCK, inventorySync, 'stock:read stock:write', 'stock:read stock:write'],
    [SALES, reporting, 'orders:read', 'orders:read'],
    [STOCK, checkout, undefined, 'stock:read stock:reserve'],
  ] as const) {
    it(`issues an RFC 9068 JWT access token for ${resource} to ${client.clientId} (scope ${scope ?? 'not asked: every one it holds there'})`, async () => {
      const response = await requestToken(`${issuer}/token`, client, { resource, ...(scope && { scope }) });
      expect(response.status).to.equal(200);
      const body = (await response.json()) as {
        access_token: string;
        token_type: string;
        expires_in: number;
        scope: string;
      };
      expect(body).to.include({ token_type: 'Bearer', expires_in: 600, scope: expected });
      expect(decodePart(body.access_token, 0)).to.deep.equal({
        alg: 'ES256',
        typ: 'at+jwt',
        kid: signingKeyOf(files.keysFile).kid,
      });
      const claims = decodePart(body.access_token, 1);
      expect(claims).to.include({
        iss: issuer,
        aud: resource,
        sub: client.clientId,
        client_id: client.clientId,
        scope: expected,
      });
      expect(claims.jti).to.be.a('string');
      expect((claims.exp as number) - (claims.iat as number)).to.equal(600);
    });
  }

  it('takes the client’s credentials in the body too (client_secret_post)', async () => {
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: checkout.clientId,
        client_secret: checkout.clientSecret,
        resource: SALES,
      }),
    });
    expect(response.status).to.equal(200);
    expect(((await response.json()) as { scope: string }).scope).to.equal('orders:write');
  });

  it('gives tokens to a page served at the issuer’s origin (the gateway’s /swagger), not to pages elsewhere', async () => {
    const fromPage = (origin: string) =>
      fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { origin },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: reporting.clientId,
          client_secret: reporting.clientSecret,
          resource: SALES,
        }),
      });
    expect((await fromPage(new URL(issuer).origin)).status).to.equal(200);
    const elsewhere = await fromPage('https://evil.example.test');
    expect(elsewhere.status).to.equal(400);
    expect(await elsewhere.json()).to.include({ error: 'invalid_request' });
  });

  it('takes the API from the scopes when no resource is given and they all belong to one (swagger-ui sends none)', async () => {
    const response = await requestToken(`${issuer}/token`, checkout, { scope: 'stock:read stock:reserve' });
    expect(response.status).to.equal(200);
    const body = (await response.json()) as { access_token: string; scope: string };
    expect(body.scope).to.equal('stock:read stock:reserve');
    expect(decodePart(body.access_token, 1)).to.include({ aud: STOCK });
  });

  const refusals: [
    string,
    Parameters<typeof requestToken>[1],
    Record<string, string>,
    number,
    Record<string, string>,
  ][] = [
    [
      'a wrong secret',
      { clientId: inventorySync.clientId, clientSecret: `${inventorySync.clientSecret}x` },
      { resource: STOCK },
      401,
      { error: 'invalid_client' },
    ],
    [
      'an unknown client',
      { clientId: 'nobody', clientSecret: inventorySync.clientSecret },
      { resource: STOCK },
      401,
      { error: 'invalid_client' },
    ],
    [
      'a scope the client is not allowed',
      inventorySync,
      { resource: STOCK, scope: 'stock:read stock:reserve' },
      400,
      { error: 'invalid_scope', scope: 'stock:reserve' },
    ],
    [
      'a scope of the other API',
      inventorySync,
      { resource: STOCK, scope: 'orders:read' },
      400,
      { error: 'invalid_scope', scope: 'orders:read' },
    ],
    ['no resource and no scope', inventorySync, {}, 400, { error: 'invalid_target' }],
    [
      'no resource and scopes of both APIs',
      checkout,
      { scope: 'stock:read orders:write' },
      400,
      { error: 'invalid_target' },
    ],
    ['an unknown resource', inventorySync, { resource: 'urn:commerce:billing' }, 400, { error: 'invalid_target' }],
    ['an API the client has no scope on', inventorySync, { resource: SALES }, 400, { error: 'invalid_target' }],
    [
      'another grant',
      inventorySync,
      { resource: STOCK, grant_type: 'password' },
      400,
      { error: 'unsupported_grant_type' },
    ],
    // RFC 6749 §3.3: one space between scopes. oidc-provider 8 let two through; 9 holds requests to the syntax.
    [
      'two spaces between scopes',
      inventorySync,
      { resource: STOCK, scope: 'stock:read  stock:write' },
      400,
      { error: 'invalid_scope' },
    ],
  ];
  for (const [what, client, fields, status, error] of refusals) {
    it(`refuses a token request with ${what}, in OAuth's error format, and logs why`, async () => {
      const response = await requestToken(`${issuer}/token`, client, fields);
      expect(response.status).to.equal(status);
      expect(await response.json()).to.include(error);
      expect(identity.logs.filter((line) => line.message === 'token request refused').at(-1)).to.include({
        error: error.error,
      });
    });
  }

  it('logs the client id an unknown client claimed, in Basic credentials or in the body', async () => {
    const refusedAs = () => identity.logs.filter((line) => line.message === 'token request refused').at(-1);
    await requestToken(
      `${issuer}/token`,
      { clientId: 'no.body~1', clientSecret: inventorySync.clientSecret },
      { resource: STOCK },
    );
    expect(refusedAs()).to.include({ clientId: 'no.body~1', error: 'invalid_client' });
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'nobody-2',
      client_secret: inventorySync.clientSecret,
    });
    await fetch(`${issuer}/token`, { method: 'POST', body });
    expect(refusedAs()).to.include({ clientId: 'nobody-2', error: 'invalid_client' });
  });

  it('issues Bearer tokens only: a DPoP proof binds no token to a key, as the APIs take Bearer tokens', async () => {
    const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata).not.to.have.property('dpop_signing_alg_values_supported');
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const proof = await new SignJWT({ htm: 'POST', htu: `${issuer}/token`, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(publicKey) })
      .setIssuedAt()
      .sign(privateKey);
    const credentials = Buffer.from(`${reporting.clientId}:${reporting.clientSecret}`).toString('base64');
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${credentials}`, dpop: proof },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: SALES }),
    });
    expect(response.status).to.equal(200);
    const { token_type, access_token } = (await response.json()) as { token_type: string; access_token: string };
    expect(token_type).to.equal('Bearer');
    expect(decodePart(access_token, 1)).not.to.have.property('cnf');
  });

  it('has no browser endpoints: anything else is a 404 problem', async () => {
    for (const path of ['/auth', '/session/end', '/me', '/reg']) {
      const response = await fetch(`${issuer}${path}`);
      expect(response.status, path).to.equal(404);
      expect(response.headers.get('content-type')).to.equal('application/problem+json');
    }
  });

  it('answers its health checks and carries a request id on the provider’s responses too', async () => {
    expect((await fetch(`${issuer}/health/live`)).status).to.equal(200);
    expect((await fetch(`${issuer}/health/ready`)).status).to.equal(200);
    const jwks = await fetch(`${issuer}/jwks`, { headers: { 'x-request-id': 'trace-me-1' } });
    expect(jwks.headers.get('x-request-id')).to.equal('trace-me-1');
  });

  it('stores nothing: a second instance on the same files issues tokens the first one’s keys verify', async () => {
    const twin = await startIdentity(files, { issuer });
    try {
      const verifier = createTokenVerifier({ issuer, audience: STOCK });
      const token = await tokenFor(twin.service.url, 'inventory-sync', STOCK);
      expect(await verifier.verify(token)).to.deep.equal({
        subject: 'inventory-sync',
        clientId: 'inventory-sync',
        scopes: ['stock:read', 'stock:write'],
      });
    } finally {
      await twin.stop();
    }
  });

  it('honours ACCESS_TOKEN_TTL_SECONDS', async () => {
    const short = await startIdentity(files, { accessTokenTtlSeconds: 120 });
    try {
      const claims = decodePart(await tokenFor(short.service.issuer, 'reporting', SALES), 1);
      expect((claims.exp as number) - (claims.iat as number)).to.equal(120);
    } finally {
      await short.stop();
    }
  });

  it('signs with the new key after a reload, and keeps the old one published', async () => {
    const old = signingKeyOf(files.keysFile).kid;
    const { current } = await rotateKeysFile(files.keysFile, 600);
    await identity.service.reload();
    expect(await kidsAt(issuer)).to.deep.equal([current.kid, old]);
    expect(decodePart(await tokenFor(issuer, 'reporting', SALES), 0).kid).to.equal(current.kid);
  });
});

describe('the identity service behind a gateway at /identity', () => {
  let files: ReturnType<typeof scratchFolder>;
  before(() => (files = scratchFolder()));
  after(() => files.remove());

  const PUBLIC = 'https://api.example.test/identity';
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.test' };

  it('serves under the issuer’s path and, trusting the proxy, advertises public URLs', async () => {
    const identity = await startIdentity(files, { issuer: PUBLIC, trustProxy: 'true' });
    try {
      const response = await fetch(`${identity.service.url}/identity/.well-known/openid-configuration`, {
        headers: forwarded,
      });
      expect(await response.json()).to.include({
        issuer: PUBLIC,
        jwks_uri: `${PUBLIC}/jwks`,
        token_endpoint: `${PUBLIC}/token`,
      });
      expect(
        (await fetch(`${identity.service.url}/.well-known/openid-configuration`, { headers: forwarded })).status,
      ).to.equal(404);
      const logged = identity.logs.filter((line) => line.message === 'request').map((line) => [line.path, line.status]);
      expect(logged).to.deep.equal([
        ['/identity/.well-known/openid-configuration', 200],
        ['/.well-known/openid-configuration', 404],
      ]);
    } finally {
      await identity.stop();
    }
  });

  it('ignores X-Forwarded-* unless told to trust them', async () => {
    const identity = await startIdentity(files, { issuer: 'http://api.example.test/identity' });
    try {
      const response = await fetch(`${identity.service.url}/identity/.well-known/openid-configuration`, {
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' },
      });
      expect(await response.json()).to.include({
        issuer: 'http://api.example.test/identity',
        jwks_uri: `${identity.service.url}/identity/jwks`,
      });
    } finally {
      await identity.stop();
    }
  });

  it('issues tokens naming the public issuer', async () => {
    const identity = await startIdentity(files, { issuer: PUBLIC, trustProxy: 'true' });
    try {
      const client = CLIENTS.find((c) => c.clientId === 'reporting')!;
      const response = await fetch(`${identity.service.url}/identity/token`, {
        method: 'POST',
        headers: forwarded,
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
          resource: SALES,
        }),
      });
      const token = ((await response.json()) as { access_token: string }).access_token;
      expect(decodePart(token, 1).iss).to.equal(PUBLIC);
    } finally {
      await identity.stop();
    }
  });
});
