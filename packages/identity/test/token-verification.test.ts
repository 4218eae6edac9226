import { createTokenVerifier } from '@platform/koa';
import { expect } from 'chai';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWTPayload, SignJWT } from 'jose';
import { createPublicKey } from 'node:crypto';
import { callWith, decodePart, type IdentityUnderTest, type ResourceServer, SALES, scratchFolder, STOCK, signingKeyOf, startIdentity, startResourceServer, tokenFor } from './support';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** What a service answers a refused token: 401 problem+json and an RFC 6750 challenge with a reason. */
async function expectInvalidToken(response: Response, description: string): Promise<void> {
  expect(response.status).to.equal(401);
  expect(response.headers.get('www-authenticate')).to.equal(`Bearer error="invalid_token", error_description="${description}"`);
  expect(response.headers.get('content-type')).to.equal('application/problem+json');
  expect(await response.json()).to.include({ status: 401, code: 'INVALID_TOKEN', detail: description });
}

describe('a service checking access tokens', function () {
  let files: ReturnType<typeof scratchFolder>;
  let identity: IdentityUnderTest;
  let stock: ResourceServer;
  let issuer = '';
  let products = '';
  /** A good stock token's claims, for forging tokens that differ in one respect. */
  let claims: JWTPayload;

  before(async () => {
    files = scratchFolder();
    identity = await startIdentity(files);
    issuer = identity.service.issuer;
    stock = await startResourceServer(createTokenVerifier({ issuer, audience: STOCK }));
    products = `${stock.url}/api/products`;
    claims = decodePart(await tokenFor(issuer, 'inventory-sync', STOCK), 1);
  });
  after(async () => {
    await stock.close();
    await identity.stop();
    files.remove();
  });

  /** A token signed with the issuer's real signing key: only what `changes` says differs from a good one. */
  async function forged(changes: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
    const key = signingKeyOf(files.keysFile);
    return new SignJWT({ ...claims, ...changes }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid, ...header }).sign(await importJWK(key, 'ES256'));
  }

  it('lets a token with the scope through and hands the route its principal', async () => {
    const response = await callWith(products, await tokenFor(issuer, 'inventory-sync', STOCK, 'stock:read'));
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ subject: 'inventory-sync', clientId: 'inventory-sync', scopes: ['stock:read'] });
  });

  it('accepts a forged-alike token, so the refusals below are each about one thing', async () => {
    expect((await callWith(products, await forged({}))).status).to.equal(200);
  });

  it('refuses a request without a token: 401 and a bare Bearer challenge', async () => {
    for (const headers of [{}, { authorization: 'Basic aW52ZW50b3J5LXN5bmM6eA==' }] as Record<string, string>[]) {
      const response = await fetch(products, { headers });
      expect(response.status).to.equal(401);
      expect(response.headers.get('www-authenticate')).to.equal('Bearer');
      expect(response.headers.get('content-type')).to.equal('application/problem+json');
      expect(await response.json()).to.include({ code: 'TOKEN_REQUIRED', status: 401 });
    }
  });

  it('refuses an Authorization header that holds no bearer token', async () => {
    await expectInvalidToken(await fetch(products, { headers: { authorization: 'Bearer two words' } }), 'The Authorization header does not hold a bearer token.');
    await expectInvalidToken(await callWith(products, 'not-a-jwt'), 'The access token is malformed.');
  });

  it('refuses an expired token', async () => {
    await expectInvalidToken(await callWith(products, await forged({ iat: now() - 700, exp: now() - 60 })), 'The access token has expired.');
  });

  it('allows a few seconds of clock skew on exp', async () => {
    expect((await callWith(products, await forged({ iat: now() - 600, exp: now() - 1 }))).status).to.equal(200);
  });

  it('refuses a token that is not valid yet', async () => {
    await expectInvalidToken(await callWith(products, await forged({ nbf: now() + 60 })), 'The access token is not valid yet.');
  });

  it('refuses a token from another issuer', async () => {
    await expectInvalidToken(await callWith(products, await forged({ iss: 'https://issuer.example.test' })), 'The access token comes from another issuer.');
  });

  it('refuses a token for another API: a sales token at stock', async () => {
    const sales = await tokenFor(issuer, 'checkout', SALES, 'orders:write');
    await expectInvalidToken(await callWith(products, sales), 'The access token is meant for another service.');
  });

  it('refuses a token that is not an access token (typ JWT)', async () => {
    await expectInvalidToken(await callWith(products, await forged({}, { typ: 'JWT' })), 'The token is not an access token (typ at+jwt).');
  });

  it('refuses a token without a claim RFC 9068 requires', async () => {
    await expectInvalidToken(await callWith(products, await forged({ client_id: undefined })), 'The access token has no client_id claim.');
  });

  it('refuses an unsigned token (alg none)', async () => {
    const unsigned = `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims)}.`;
    await expectInvalidToken(await callWith(products, unsigned), 'The access token is not signed with ES256.');
  });

  it('refuses an HS256 token whose secret is the issuer’s public key (as bytes)', async () => {
    const key = signingKeyOf(files.keysFile);
    const publicPem = createPublicKey({ key: { kty: key.kty, crv: key.crv, x: key.x, y: key.y }, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    for (const secret of [Buffer.from(publicPem), Buffer.from(JSON.stringify({ kty: key.kty, crv: key.crv, x: key.x, y: key.y }))]) {
      const token = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: key.kid }).sign(new Uint8Array(secret));
      await expectInvalidToken(await callWith(products, token), 'The access token is not signed with ES256.');
    }
  });

  it('refuses a token signed by a key the issuer does not publish', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const kid = await calculateJwkThumbprint(await exportJWK(publicKey));
    const token = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid }).sign(privateKey);
    await expectInvalidToken(await callWith(products, token), 'The access token is signed with a key the issuer does not publish.');
  });

  it('refuses a token signed by another key under the issuer’s kid', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signingKeyOf(files.keysFile).kid }).sign(privateKey);
    await expectInvalidToken(await callWith(products, token), 'The access token signature is not valid.');
  });

  it('refuses a token whose payload was changed after signing', async () => {
    const [header, , signature] = (await tokenFor(issuer, 'inventory-sync', STOCK, 'stock:read')).split('.');
    const tampered = `${header}.${b64({ ...claims, scope: 'stock:read stock:write stock:reserve' })}.${signature}`;
    await expectInvalidToken(await callWith(products, tampered), 'The access token signature is not valid.');
  });

  it('refuses a good token without the route’s scope: 403 insufficient_scope naming it', async () => {
    const response = await callWith(products, await tokenFor(issuer, 'inventory-sync', STOCK, 'stock:read'), { method: 'POST' });
    expect(response.status).to.equal(403);
    expect(response.headers.get('www-authenticate')).to.equal('Bearer error="insufficient_scope", scope="stock:write"');
    expect(response.headers.get('content-type')).to.equal('application/problem+json');
    expect(await response.json()).to.include({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    expect((await callWith(products, await tokenFor(issuer, 'inventory-sync', STOCK, 'stock:write'), { method: 'POST' })).status).to.equal(201);
  });

  it('leaves health and metrics open', async () => {
    expect((await fetch(`${stock.url}/health/live`)).status).to.equal(200);
    expect((await fetch(`${stock.url}/health/ready`)).status).to.equal(200);
    expect((await fetch(`${stock.url}/metrics`)).status).to.equal(200);
  });
});

describe('a service whose token issuer cannot be reached', () => {
  it('answers 503 with Retry-After, not 401, while it has no keys', async () => {
    const files = scratchFolder();
    const gone = await startIdentity(files);
    const issuer = gone.service.issuer;
    const token = await tokenFor(issuer, 'inventory-sync', STOCK);
    await gone.stop();
    const stock = await startResourceServer(createTokenVerifier({ issuer, audience: STOCK }));
    try {
      const response = await callWith(`${stock.url}/api/products`, token);
      expect(response.status).to.equal(503);
      expect(response.headers.get('retry-after')).to.equal('1');
      expect(await response.json()).to.include({ code: 'AUTH_ISSUER_UNAVAILABLE' });
    } finally {
      await stock.close();
      files.remove();
    }
  });

  it('keeps accepting tokens signed with keys it already has', async () => {
    const files = scratchFolder();
    const identity = await startIdentity(files);
    const stock = await startResourceServer(createTokenVerifier({ issuer: identity.service.issuer, audience: STOCK }));
    try {
      const token = await tokenFor(identity.service.issuer, 'inventory-sync', STOCK);
      expect((await callWith(`${stock.url}/api/products`, token)).status).to.equal(200);
      await identity.stop();
      expect((await callWith(`${stock.url}/api/products`, token)).status).to.equal(200);
    } finally {
      await stock.close();
      await identity.stop();
      files.remove();
    }
  });
});
