import { capturingLogger } from '@platform/runtime';
import { Apis, Scopes } from '@commerce/contracts';
import {
  DEFAULT_CONFIG,
  type IdentityClient,
  type IdentityConfig,
  type RunningIdentityService,
  rotateKeysFile,
  type SigningKey,
  startIdentityService,
} from '../src';
import { importJWK, type JWTPayload, SignJWT } from 'jose';
import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const STOCK = Apis.stock.audience;
export const SALES = Apis.sales.audience;
const { stock, sales } = Scopes;

/**
 * Clients for every test that needs tokens: a stock integration, a checkout, a reporting tool, two buyers, an orders
 * administrator, the payment provider, an administrator of stock's webhooks and a warehouse that ships orders.
 */
export const CLIENTS: readonly IdentityClient[] = [
  {
    clientId: 'inventory-sync',
    clientSecret: 'inventory-sync-secret-0123456789abcdef',
    scopes: [stock.read, stock.write],
  },
  {
    clientId: 'checkout',
    clientSecret: 'checkout-secret-0123456789abcdefghijklm',
    scopes: [stock.read, stock.reserve, sales.write],
  },
  { clientId: 'reporting', clientSecret: 'reporting-secret-0123456789abcdefghijkl', scopes: [sales.read] },
  { clientId: 'buyer-a', clientSecret: 'buyer-a-secret-0123456789abcdefghijklmno', scopes: [sales.read, sales.write] },
  { clientId: 'buyer-b', clientSecret: 'buyer-b-secret-0123456789abcdefghijklmno', scopes: [sales.read, sales.write] },
  {
    clientId: 'orders-admin',
    clientSecret: 'orders-admin-secret-0123456789abcdefghij',
    scopes: [sales.admin, stock.read],
  },
  { clientId: 'payment-provider', clientSecret: 'payment-provider-secret-0123456789abcdef', scopes: [sales.pay] },
  { clientId: 'webhook-admin', clientSecret: 'webhook-admin-secret-0123456789abcdefgh', scopes: [stock.webhooks] },
  { clientId: 'warehouse', clientSecret: 'warehouse-secret-0123456789abcdefghijklm', scopes: [stock.fulfil] },
];

export interface IdentityFiles {
  readonly folder: string;
  readonly clientsFile: string;
  readonly keysFile: string;
  /** Where the users file goes; none is written, so the service has no staff unless a test adds some. */
  readonly usersFile: string;
  remove(): void;
}

/** A fresh folder with the clients file in it; the keys file is made by the first start. */
export function scratchFolder(): IdentityFiles {
  const folder = mkdtempSync(join(tmpdir(), 'identity-'));
  const clientsFile = join(folder, 'clients.json');
  writeFileSync(clientsFile, JSON.stringify(CLIENTS), { mode: 0o600 });
  return {
    folder,
    clientsFile,
    keysFile: join(folder, 'keys', 'signing-keys.json'),
    usersFile: join(folder, 'users.json'),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}

export interface IdentityUnderTest {
  readonly service: RunningIdentityService;
  readonly files: Pick<IdentityFiles, 'clientsFile' | 'keysFile' | 'usersFile'>;
  readonly logs: Record<string, unknown>[];
  /** A token for `clientId` (one of CLIENTS), or a thrown error saying why not. */
  token(clientId: string, resource: string, scope?: string): Promise<string>;
  /** Rotates the keys file and has the service sign with the new key; answers its kid. */
  rotateKeys(): Promise<string>;
  stop(): Promise<void>;
}

/** The identity service in this process, on an ephemeral port, reading the folder's files. */
export async function startIdentity(
  someFiles: Pick<IdentityFiles, 'clientsFile' | 'keysFile'> & Partial<Pick<IdentityFiles, 'usersFile'>>,
  config: Partial<IdentityConfig> = {},
): Promise<IdentityUnderTest> {
  const logs: Record<string, unknown>[] = [];
  // Never the default data/identity-users.json of the working folder: a developer's staff are not the test's.
  const files = { usersFile: join(dirname(someFiles.clientsFile), 'users.json'), ...someFiles };
  const service = await startIdentityService(
    { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1', ...files, ...config },
    { logger: capturingLogger('identity', logs) },
  );
  return {
    service,
    files,
    logs,
    token: (clientId, resource, scope) => tokenFor(service.issuer, clientId, resource, scope),
    async rotateKeys() {
      const { current } = await rotateKeysFile(
        files.keysFile,
        config.accessTokenTtlSeconds ?? DEFAULT_CONFIG.accessTokenTtlSeconds,
      );
      await service.reload();
      return current.kid;
    },
    stop: async () => void (await service.close({ immediate: true })),
  };
}

/**
 * POSTs a client-credentials request to the token endpoint, with HTTP Basic (RFC 6749 §2.3.1 form-encodes both parts
 * first).
 */
export function requestToken(
  tokenEndpoint: string,
  client: Pick<IdentityClient, 'clientId' | 'clientSecret'>,
  fields: Record<string, string>,
): Promise<Response> {
  const credentials = Buffer.from(
    `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
  ).toString('base64');
  return fetch(tokenEndpoint, {
    method: 'POST',
    headers: { authorization: `Basic ${credentials}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...fields }),
  });
}

/** An access token for `clientId` (one of CLIENTS), or a thrown error saying why not. */
export async function tokenFor(issuer: string, clientId: string, resource: string, scope?: string): Promise<string> {
  const client = CLIENTS.find((c) => c.clientId === clientId);
  if (!client) throw new Error(`no test client ${clientId}`);
  const response = await requestToken(`${issuer}/token`, client, { resource, ...(scope && { scope }) });
  const body = (await response.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`no token: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

export function decodePart(token: string, part: 0 | 1): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[part]!, 'base64url').toString()) as Record<string, unknown>;
}

/** The keys file's signing key, private part included: tests forge tokens with it to isolate one check at a time. */
export function signingKeyOf(keysFile: string): SigningKey {
  return (JSON.parse(readFileSync(keysFile, 'utf8')) as { keys: SigningKey[] }).keys[0]!;
}

/**
 * A token signed HS256 under the issuer's signing kid with its public key as the secret (as PEM, or as its JWK's
 * JSON): the algorithm confusion a verifier that trusts the header's `alg` would take.
 */
export function signedWithThePublicKey(
  keysFile: string,
  claims: JWTPayload,
  as: 'pem' | 'jwk' = 'pem',
): Promise<string> {
  const { kty, crv, x, y, kid } = signingKeyOf(keysFile);
  const publicJwk = { kty, crv, x, y };
  const secret =
    as === 'pem'
      ? createPublicKey({ key: publicJwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' })
      : JSON.stringify(publicJwk);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid })
    .sign(new Uint8Array(Buffer.from(secret)));
}

export async function kidsAt(issuer: string): Promise<string[]> {
  const { keys } = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: { kid: string }[] };
  return keys.map((key) => key.kid);
}

/** Calls `url` with `token` as a bearer token (or none). */
export function callWith(url: string, token?: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
  return fetch(url, { ...init, headers });
}

/**
 * A token signed with the issuer's real signing key (from its keys file): a good one's `claims`, with only what
 * `changes` says different.
 */
export async function forgedToken(
  keysFile: string,
  claims: JWTPayload,
  changes: JWTPayload = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const key = signingKeyOf(keysFile);
  return new SignJWT({ ...claims, ...changes })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid, ...header })
    .sign(await importJWK(key, 'ES256'));
}
