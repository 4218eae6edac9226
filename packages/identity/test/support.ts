import Router from '@koa/router';
import { authenticate, createHttpApp, principalOf, problemsFor, requireScope, type TokenVerifier } from '@platform/koa';
import { createLogger, type Logger } from '@platform/runtime';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import winston from 'winston';
import { DEFAULT_CONFIG, type IdentityClient, type IdentityConfig, type RunningIdentityService, type SigningKey, startIdentityService } from '../src';

export const CLIENTS: readonly IdentityClient[] = [
  { clientId: 'inventory-sync', clientSecret: 'inventory-sync-secret-0123456789abcdef', scopes: ['stock:read', 'stock:write'] },
  { clientId: 'checkout', clientSecret: 'checkout-secret-0123456789abcdefghijklm', scopes: ['stock:read', 'stock:reserve', 'orders:write'] },
  { clientId: 'reporting', clientSecret: 'reporting-secret-0123456789abcdefghijkl', scopes: ['orders:read'] },
];

export const STOCK = 'urn:commerce:stock';
export const SALES = 'urn:commerce:sales';

/** A fresh folder with the clients file in it; removed after the suite. */
export function scratchFolder(): { folder: string; clientsFile: string; keysFile: string; remove(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'identity-'));
  const clientsFile = join(folder, 'clients.json');
  writeFileSync(clientsFile, JSON.stringify(CLIENTS), { mode: 0o600 });
  return { folder, clientsFile, keysFile: join(folder, 'keys', 'signing-keys.json'), remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/** A logger whose lines land, parsed, in `logs`. */
export function capturingLogger(logs: Record<string, unknown>[]): Logger {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return createLogger('identity', 'info', [new winston.transports.Stream({ stream: sink })]);
}

export interface IdentityUnderTest {
  readonly service: RunningIdentityService;
  readonly logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** The identity service in this process, on an ephemeral port, reading the folder's files. */
export async function startIdentity(files: { clientsFile: string; keysFile: string }, config: Partial<IdentityConfig> = {}): Promise<IdentityUnderTest> {
  const logs: Record<string, unknown>[] = [];
  const service = await startIdentityService({ ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1', ...files, ...config }, { logger: capturingLogger(logs) });
  return { service, logs, stop: async () => void (await service.close({ immediate: true })) };
}

/** POSTs a client-credentials request to the token endpoint, with HTTP Basic (RFC 6749 §2.3.1 form-encodes both parts first). */
export function requestToken(tokenEndpoint: string, client: Pick<IdentityClient, 'clientId' | 'clientSecret'>, fields: Record<string, string>): Promise<Response> {
  const credentials = Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64');
  return fetch(tokenEndpoint, {
    method: 'POST',
    headers: { authorization: `Basic ${credentials}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...fields }),
  });
}

/** An access token for `clientId`, or a thrown error saying why not. */
export async function tokenFor(issuer: string, clientId: string, resource: string, scope?: string): Promise<string> {
  const client = CLIENTS.find((c) => c.clientId === clientId)!;
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

export async function kidsAt(issuer: string): Promise<string[]> {
  const { keys } = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: { kid: string }[] };
  return keys.map((key) => key.kid);
}

export interface ResourceServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A stock-like API on the house's app, guarded as a service would guard it:
 * reads need stock:read, writes stock:write; health stays open. Its routes
 * answer the principal they were given.
 */
export async function startResourceServer(verifier: TokenVerifier): Promise<ResourceServer> {
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const http = createHttpApp({ logger: quiet, toProblem: problemsFor<never>({}) });
  const router = new Router({ prefix: '/api' });
  router.use(authenticate(verifier));
  router.get('/products', requireScope('stock:read'), (ctx) => {
    ctx.body = principalOf(ctx);
  });
  router.post('/products', requireScope('stock:write'), (ctx) => {
    ctx.status = 201;
    ctx.body = principalOf(ctx);
  });
  http.route(router);
  const server = http.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Calls `url` with `token` as a bearer token (or none). */
export function callWith(url: string, token?: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
  return fetch(url, { ...init, headers });
}
