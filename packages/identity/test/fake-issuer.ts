import { Scopes } from '@commerce/contracts';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SigningKeyPair {
  readonly kid: string;
  readonly publicJwk: JWK;
  readonly privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
}

export async function newKeyPair(): Promise<SigningKeyPair> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return { kid, publicJwk: { ...publicJwk, kid, alg: 'ES256', use: 'sig' }, privateKey };
}

/**
 * An issuer whose every answer a test decides: the keys it publishes, whether
 * it answers at all, and how many times its key set was fetched. For what a
 * real issuer cannot be made to do on cue (withdraw a key now, be down for a
 * key set's whole lifetime); the real one is in the other suites.
 */
export interface FakeIssuer {
  readonly issuer: string;
  /** What /jwks publishes now. */
  published: SigningKeyPair[];
  /** While false, every request is answered 503. */
  up: boolean;
  /** The jwks_uri its discovery document names: its own /jwks unless a test says otherwise. */
  jwksUri: string;
  /** Where its discovery document is, at its loopback address (whatever host `issuer` names). */
  readonly discoveryUrl: string;
  /** Key set fetches answered (any status). */
  readonly jwksFetches: number;
  /** An RFC 9068 access token for `audience`, signed with `key` (the first published one by default). */
  token(audience: string, claims?: JWTPayload, key?: SigningKeyPair): Promise<string>;
  close(): Promise<void>;
}

export interface FakeIssuerOptions {
  /** The host the issuer URL names (`iss`); it listens on 127.0.0.1 whatever it is. Default 127.0.0.1. */
  readonly host?: string;
}

export async function startFakeIssuer({ host = '127.0.0.1' }: FakeIssuerOptions = {}): Promise<FakeIssuer> {
  let fetches = 0;
  const state = { published: [await newKeyPair()], up: true, jwksUri: '' };
  const server = http.createServer((request, response) => {
    if (request.url === '/jwks') fetches++;
    if (!state.up) return void response.writeHead(503).end();
    const json = (body: unknown) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.url === '/.well-known/openid-configuration') return json({ issuer, jwks_uri: state.jwksUri });
    if (request.url === '/jwks') return json({ keys: state.published.map((key) => key.publicJwk) });
    response.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${host}:${port}`;
  state.jwksUri = `${issuer}/jwks`;
  return {
    issuer,
    discoveryUrl: `http://127.0.0.1:${port}/.well-known/openid-configuration`,
    get jwksUri() {
      return state.jwksUri;
    },
    set jwksUri(uri) {
      state.jwksUri = uri;
    },
    get published() {
      return state.published;
    },
    set published(keys) {
      state.published = keys;
    },
    get up() {
      return state.up;
    },
    set up(value) {
      state.up = value;
    },
    get jwksFetches() {
      return fetches;
    },
    async token(audience, claims = {}, key = state.published[0]!) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: issuer,
        aud: audience,
        sub: 'inventory-sync',
        client_id: 'inventory-sync',
        scope: Scopes.stock.read,
        jti: randomUUID(),
        iat: now,
        exp: now + 600,
        ...claims,
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid })
        .sign(key.privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
