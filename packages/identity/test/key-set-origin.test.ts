import { createTokenVerifier, type TokenVerifier } from '@platform/http';
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { callWith } from '@commerce/identity/testing';
import { type FakeIssuer, startFakeIssuer } from './fake-issuer';
import { startResourceServer } from './resource-server';

const STOCK = 'urn:commerce:stock';

const refusal = (verifier: TokenVerifier, token: string) =>
  verifier.verify(token).then(
    () => undefined,
    (error: unknown) => error as Error & { code?: string; cause?: Error },
  );

/**
 * A server elsewhere that publishes the issuer's very keys: were the verifier to fetch them, it would accept the
 * issuer's tokens.
 */
async function startMirror(issuer: FakeIssuer) {
  let fetches = 0;
  const server = http.createServer((_request, response) => {
    fetches++;
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ keys: issuer.published.map((key) => key.publicJwk) }));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    jwks: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
    get fetches() {
      return fetches;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the verifier and where the issuer’s key set may be', function () {
  this.timeout(20_000);
  let issuer: FakeIssuer;
  let mirror: Awaited<ReturnType<typeof startMirror>>;
  let logs: { level: string; message: string; fields: Record<string, unknown> }[];
  const logger = {
    info: (message: string, fields: Record<string, unknown> = {}) => logs.push({ level: 'info', message, fields }),
    warn: (message: string, fields: Record<string, unknown> = {}) => logs.push({ level: 'warn', message, fields }),
    error: (message: string, fields: Record<string, unknown> = {}) => logs.push({ level: 'error', message, fields }),
  };
  afterEach(async () => {
    await issuer?.close();
    await mirror?.close();
  });

  describe('an issuer whose discovery document is where it is', () => {
    beforeEach(async () => {
      issuer = await startFakeIssuer();
      mirror = await startMirror(issuer);
      logs = [];
    });

    it('refuses a jwks_uri on another origin (host, port or scheme), fetches nothing there, answers 503 and says why once; takes the tokens once the issuer names its own', async () => {
      const port = new URL(issuer.issuer).port;
      const token = await issuer.token(STOCK);
      for (const elsewhere of [
        'http://evil.example/jwks',
        mirror.jwks,
        `https://127.0.0.1:${port}/jwks`,
        `http://localhost:${port}/jwks`,
      ]) {
        issuer.jwksUri = elsewhere;
        const verifier = createTokenVerifier({ issuer: issuer.issuer, audience: STOCK, logger, keySetCooldownMs: 50 });
        const error = await refusal(verifier, token);
        expect(error, elsewhere).to.include({ name: 'UnavailableError', code: 'AUTH_ISSUER_UNAVAILABLE' });
        expect(error?.cause?.message, elsewhere).to.equal(
          `${issuer.issuer}/.well-known/openid-configuration names the key set ${elsewhere}, which is not on the origin of the issuer or of the discovery URL (${issuer.issuer}); its keys are not trusted`,
        );
      }
      expect(mirror.fetches, 'the keys elsewhere were never fetched').to.equal(0);

      const verifier = createTokenVerifier({ issuer: issuer.issuer, audience: STOCK, logger, keySetCooldownMs: 50 });
      issuer.jwksUri = mirror.jwks;
      logs = [];
      const api = await startResourceServer(verifier);
      try {
        for (let i = 0; i < 3; i++) {
          const response = await callWith(`${api.url}/api/products`, token);
          expect(response.status).to.equal(503);
          expect(response.headers.get('retry-after')).to.equal('1');
          expect(await response.json()).to.include({ code: 'AUTH_ISSUER_UNAVAILABLE' });
        }
        expect(logs.map(({ level, message }) => [level, message])).to.deep.equal([
          ['error', 'the token issuer’s metadata is refused; requests that need a token answer 503 until it is mended'],
        ]);
        expect(logs[0]!.fields.error).to.include(`names the key set ${mirror.jwks}`);

        issuer.jwksUri = `${issuer.issuer}/jwks`;
        expect((await callWith(`${api.url}/api/products`, token)).status).to.equal(200);
        expect(logs.map(({ message }) => message)).to.include('the token issuer answers again');
        expect(mirror.fetches).to.equal(0);
      } finally {
        await api.close();
      }
    });
  });

  describe('an issuer read at an internal address (AUTH_DISCOVERY_URL) while its public URL is another origin', () => {
    beforeEach(async () => {
      // Its tokens and metadata name http://localhost:<port>; the verifier reads it at http://127.0.0.1:<port>.
      issuer = await startFakeIssuer({ host: 'localhost' });
      mirror = await startMirror(issuer);
      logs = [];
    });

    it('takes a key set on the discovery URL’s origin or on the issuer’s, and refuses one anywhere else', async () => {
      const port = new URL(issuer.issuer).port;
      const token = await issuer.token(STOCK);
      issuer.jwksUri = `http://127.0.0.1:${port}/jwks`;
      const internal = createTokenVerifier({
        issuer: issuer.issuer,
        discoveryUrl: issuer.discoveryUrl,
        audience: STOCK,
        logger,
        keySetCooldownMs: 50,
      });
      expect(await internal.verify(token)).to.include({ subject: 'inventory-sync' });
      // On the issuer's own origin it is used too (whether this machine's localhost reaches 127.0.0.1 is not this
      // test's business).
      issuer.jwksUri = `${issuer.issuer}/jwks`;
      const onIssuer = createTokenVerifier({
        issuer: issuer.issuer,
        discoveryUrl: issuer.discoveryUrl,
        audience: STOCK,
        logger,
        keySetCooldownMs: 50,
      });
      expect((await refusal(onIssuer, token))?.cause?.message ?? 'verified').not.to.include('its keys are not trusted');
      issuer.jwksUri = mirror.jwks;
      const verifier = createTokenVerifier({
        issuer: issuer.issuer,
        discoveryUrl: issuer.discoveryUrl,
        audience: STOCK,
        logger,
        keySetCooldownMs: 50,
      });
      const error = await refusal(verifier, token);
      expect(error).to.include({ code: 'AUTH_ISSUER_UNAVAILABLE' });
      expect(error?.cause?.message).to.equal(
        `${issuer.discoveryUrl} names the key set ${mirror.jwks}, which is not on the origin of the issuer or of the discovery URL (${issuer.issuer} or http://127.0.0.1:${port}); its keys are not trusted`,
      );
      expect(mirror.fetches).to.equal(0);
    });
  });
});
