import { createTokenVerifier } from '@platform/http';
import { expect } from 'chai';
import { generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import {
  callWith,
  decodePart,
  expectInvalidToken,
  forgedToken,
  type IdentityUnderTest,
  SALES,
  scratchFolder,
  signedWithThePublicKey,
  STOCK,
  signingKeyOf,
  startIdentity,
  tokenChecksContract,
  tokenFor,
} from '@commerce/identity/testing';
import { type ResourceServer, startResourceServer } from './resource-server';

const now = () => Math.floor(Date.now() / 1000);

tokenChecksContract(
  'a minimal resource server on the platform',
  { otherAudience: { client: 'checkout', audience: SALES, scope: 'orders:write' }, scopes: true },
  async (identity) => {
    const server = await startResourceServer(createTokenVerifier({ issuer: identity.service.issuer, audience: STOCK }));
    return {
      call: (token) => callWith(`${server.url}/api/products`, token),
      good: { client: 'inventory-sync', audience: STOCK, scope: 'stock:read' },
      needsAnotherScope: (token) => callWith(`${server.url}/api/products`, token, { method: 'POST' }),
      close: () => server.close(),
    };
  },
);

describe('a service checking access tokens, beyond the contract', function () {
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

  const forged = (changes: JWTPayload, header: Record<string, unknown> = {}) =>
    forgedToken(files.keysFile, claims, changes, header);

  it('lets a token with the scope through and hands the route its principal', async () => {
    const response = await callWith(products, await tokenFor(issuer, 'inventory-sync', STOCK, 'stock:read'));
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({
      subject: 'inventory-sync',
      clientId: 'inventory-sync',
      scopes: ['stock:read'],
    });
  });

  it('refuses an Authorization header that holds no bearer token', async () => {
    await expectInvalidToken(
      await fetch(products, { headers: { authorization: 'Bearer two words' } }),
      'The Authorization header does not hold a bearer token.',
    );
    await expectInvalidToken(await callWith(products, 'not-a-jwt'), 'The access token is malformed.');
  });

  it('allows a few seconds of clock skew on exp', async () => {
    expect((await callWith(products, await forged({ iat: now() - 600, exp: now() - 1 }))).status).to.equal(200);
  });

  it('refuses a token that is not an access token (typ JWT)', async () => {
    await expectInvalidToken(
      await callWith(products, await forged({}, { typ: 'JWT' })),
      'The token is not an access token (typ at+jwt).',
    );
  });

  it('refuses a token without a claim RFC 9068 requires', async () => {
    await expectInvalidToken(
      await callWith(products, await forged({ client_id: undefined })),
      'The access token has no client_id claim.',
    );
  });

  it('refuses an HS256 token whose secret is the issuer’s public key (as bytes)', async () => {
    for (const as of ['pem', 'jwk'] as const) {
      const token = await signedWithThePublicKey(files.keysFile, claims, as);
      await expectInvalidToken(await callWith(products, token), 'The access token is not signed with ES256.');
    }
  });

  it('refuses a token signed by another key under the issuer’s kid', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signingKeyOf(files.keysFile).kid })
      .sign(privateKey);
    await expectInvalidToken(await callWith(products, token), 'The access token signature is not valid.');
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
