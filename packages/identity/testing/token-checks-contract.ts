import { expect } from 'chai';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import {
  decodePart,
  forgedToken,
  type IdentityUnderTest,
  scratchFolder,
  signedWithThePublicKey,
  startIdentity,
} from './issuer';

/** What a guarded API under test offers the contract. */
export interface GuardedApi {
  /** A call that needs a token (GET on a read route, say), with `token` as its bearer token, or none. */
  call(token?: string): Promise<Response>;
  /** A good token for that call: its client (one of CLIENTS), audience and scope. */
  readonly good: { readonly client: string; readonly audience: string; readonly scope: string };
  /** A call needing a scope that `good`'s token lacks, when the contract's options ask for the scope check. */
  readonly needsAnotherScope?: (token: string) => Promise<Response>;
  close(): Promise<void>;
}

export interface TokenChecks {
  /** A token of another API, refused by a service (the gateway takes tokens of either API and has no such case). */
  readonly otherAudience?: { readonly client: string; readonly audience: string; readonly scope: string };
  /** Whether the API checks scopes (a service answers 403; the gateway leaves scopes to the services). */
  readonly scopes?: boolean;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** What a refused token gets: 401 problem+json and an RFC 6750 challenge with a reason. */
export async function expectInvalidToken(response: Response, description: string): Promise<void> {
  expect(response.status).to.equal(401);
  expect(response.headers.get('www-authenticate')).to.equal(
    `Bearer error="invalid_token", error_description="${description}"`,
  );
  expect(response.headers.get('content-type')).to.equal('application/problem+json');
  expect(await response.json()).to.include({ status: 401, code: 'INVALID_TOKEN', detail: description });
}

/**
 * The token checks every guarded API must make, each a test of its own,
 * against a real issuer (RFC 8725 is the checklist): no token, expired, not
 * yet valid, another issuer, an audience nobody serves, another API,
 * unsigned, HS256 keyed with the issuer's public key, an unknown key, a
 * changed payload, a missing scope; and a key rotation accepted without a
 * restart.
 */
export function tokenChecksContract(
  name: string,
  checks: TokenChecks,
  start: (identity: IdentityUnderTest) => Promise<GuardedApi>,
): void {
  describe(`token checks: ${name}`, function () {
    this.timeout(30_000);
    let files: ReturnType<typeof scratchFolder>;
    let identity: IdentityUnderTest;
    let api: GuardedApi;
    /** A good token's claims, for forging tokens that differ in one respect. */
    let claims: JWTPayload;
    const good = () => identity.token(api.good.client, api.good.audience, api.good.scope);

    before(async () => {
      files = scratchFolder();
      identity = await startIdentity(files);
      api = await start(identity);
      claims = decodePart(await good(), 1);
    });
    after(async () => {
      await api?.close();
      await identity?.stop();
      files?.remove();
    });

    const forged = (changes: JWTPayload, header: Record<string, unknown> = {}) =>
      forgedToken(files.keysFile, claims, changes, header);

    it('lets a good token through, and a forged-alike one, so the refusals below are each about one thing', async () => {
      expect((await api.call(await good())).status).to.be.within(200, 299);
      expect((await api.call(await forged({}))).status).to.be.within(200, 299);
    });

    it('refuses a request without a token: 401 and a bare Bearer challenge', async () => {
      const response = await api.call();
      expect(response.status).to.equal(401);
      expect(response.headers.get('www-authenticate')).to.equal('Bearer');
      expect(response.headers.get('content-type')).to.equal('application/problem+json');
      expect(await response.json()).to.include({ code: 'TOKEN_REQUIRED', status: 401 });
    });

    it('refuses an expired token', async () => {
      await expectInvalidToken(
        await api.call(await forged({ iat: now() - 700, exp: now() - 60 })),
        'The access token has expired.',
      );
    });

    it('refuses a token that is not valid yet', async () => {
      await expectInvalidToken(await api.call(await forged({ nbf: now() + 60 })), 'The access token is not valid yet.');
    });

    it('refuses a token from another issuer', async () => {
      await expectInvalidToken(
        await api.call(await forged({ iss: 'https://issuer.example.test' })),
        'The access token comes from another issuer.',
      );
    });

    it('refuses a token for an audience no API here serves', async () => {
      await expectInvalidToken(
        await api.call(await forged({ aud: 'urn:commerce:billing' })),
        'The access token is meant for another service.',
      );
    });

    const { otherAudience } = checks;
    if (otherAudience) {
      it(`refuses a token for another API (${otherAudience.audience})`, async () => {
        const { client, audience, scope } = otherAudience;
        await expectInvalidToken(
          await api.call(await identity.token(client, audience, scope)),
          'The access token is meant for another service.',
        );
      });
    }

    it('refuses an unsigned token (alg none)', async () => {
      await expectInvalidToken(
        await api.call(`${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims)}.`),
        'The access token is not signed with ES256.',
      );
    });

    it('refuses an HS256 token whose secret is the issuer’s public key', async () => {
      await expectInvalidToken(
        await api.call(await signedWithThePublicKey(files.keysFile, claims)),
        'The access token is not signed with ES256.',
      );
    });

    it('refuses a token signed by a key the issuer does not publish', async () => {
      const { privateKey, publicKey } = await generateKeyPair('ES256');
      const kid = await calculateJwkThumbprint(await exportJWK(publicKey));
      const token = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid }).sign(privateKey);
      await expectInvalidToken(
        await api.call(token),
        'The access token is signed with a key the issuer does not publish.',
      );
    });

    it('refuses a token whose payload was changed after signing', async () => {
      const [header, , signature] = (await good()).split('.');
      await expectInvalidToken(
        await api.call(
          `${header}.${b64({ ...claims, client_id: 'somebody-else', sub: 'somebody-else' })}.${signature}`,
        ),
        'The access token signature is not valid.',
      );
    });

    if (checks.scopes) {
      it('refuses a good token without the scope: 403 insufficient_scope', async () => {
        if (!api.needsAnotherScope) throw new Error('the API under test offers no call that needs another scope');
        const response = await api.needsAnotherScope(await good());
        expect(response.status).to.equal(403);
        expect(response.headers.get('www-authenticate')).to.match(/^Bearer error="insufficient_scope", scope="[^"]+"$/);
        expect(await response.json()).to.include({ status: 403, code: 'INSUFFICIENT_SCOPE' });
      });
    }

    it('accepts tokens signed with a new key after a rotation, without a restart', async () => {
      const kid = await identity.rotateKeys();
      const token = await good();
      expect(decodePart(token, 0).kid).to.equal(kid);
      expect((await api.call(token)).status).to.be.within(200, 299);
    });
  });
}
