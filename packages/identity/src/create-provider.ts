import type { Logger } from '@platform/runtime';
import Provider, { type ClientMetadata, type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { IdentityClient } from './clients-file';
import { type KeyRing, providerJwks } from './keys-file';
import { NoStorageAdapter } from './no-storage-adapter';
import { ALL_SCOPES, RESOURCES } from './resources';
import {
  BACK_OFFICE_CLIENT_ID,
  backOfficeClient,
  type StaffOptions,
  staffConfiguration,
  userScopesOn,
} from './staff-sign-in';

export interface ProviderOptions {
  readonly issuer: string;
  readonly keys: KeyRing;
  readonly clients: readonly IdentityClient[];
  readonly accessTokenTtlSeconds: number;
  readonly trustProxy: boolean;
  readonly logger: Logger;
  /** Staff sign-in for the back office (authorization code with PKCE), when there are staff. */
  readonly staff?: StaffOptions;
}

function requestedScopes(ctx: KoaContextWithOIDC): string[] {
  const { scope } = ctx.oidc.params ?? {};
  return typeof scope === 'string' && scope ? [...new Set(scope.split(' ').filter(Boolean))] : [];
}

/**
 * The client id a token request names, in its body or its Basic credentials,
 * for the log when no client is found: oidc-provider 9 keeps it to itself.
 */
function claimedClientId(ctx: KoaContextWithOIDC): string | undefined {
  const inBody = ctx.oidc.params?.client_id;
  if (typeof inBody === 'string') return inBody;
  const [scheme, credentials] = (ctx.get('authorization') || '').split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !credentials) return undefined;
  const basic = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = basic.indexOf(':');
  return colon > 0 ? formDecoded(basic.slice(0, colon)) : undefined;
}

/** Basic credentials in OAuth are form-urlencoded (RFC 6749 §2.3.1); a malformed one is logged as sent. */
function formDecoded(value: string): string {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return value;
  }
}

/** The one API every scope belongs to, or undefined (no scope, an unknown one, or scopes of two APIs). */
export function apiOfScopes(scopes: readonly string[]): string | undefined {
  const apis = new Set(
    scopes.map((scope) => Object.keys(RESOURCES).find((resource) => RESOURCES[resource]!.includes(scope))),
  );
  const [api] = apis;
  return apis.size === 1 && api !== undefined ? api : undefined;
}

/**
 * Which API a token is for and which scopes it carries. oidc-provider does
 * not hold API scopes to a client's allowance (it silently drops the others),
 * so this hook refuses them by name.
 */
function resourceServer(clients: readonly IdentityClient[], accessTokenTtlSeconds: number, staff?: StaffOptions) {
  const allowedTo = new Map(clients.map((client) => [client.clientId, new Set(client.scopes)]));
  const tokenFor = (resource: string, scopes: readonly string[]) => ({
    scope: scopes.join(' '),
    audience: resource,
    accessTokenTTL: accessTokenTtlSeconds,
    accessTokenFormat: 'jwt' as const,
    jwt: { sign: { alg: 'ES256' as const } },
  });
  return (ctx: KoaContextWithOIDC, resource: string, client: { clientId: string }) => {
    if (staff && client.clientId === BACK_OFFICE_CLIENT_ID) return staffResourceServer(ctx, resource, staff, tokenFor);
    // oidc-provider refuses several resources itself, but only after calling this hook for each.
    if (Array.isArray(ctx.oidc.params?.resource))
      throw new errors.InvalidTarget('only one resource indicator is supported per token request');
    const apiScopes = RESOURCES[resource];
    if (!apiScopes)
      throw new errors.InvalidTarget(`unknown resource indicator; known: ${Object.keys(RESOURCES).join(', ')}`);
    const allowed = apiScopes.filter((scope) => allowedTo.get(client.clientId)?.has(scope));
    if (allowed.length === 0) throw new errors.InvalidTarget('this client is not allowed to access this resource');
    const requested = requestedScopes(ctx);
    for (const scope of requested) {
      if (!apiScopes.includes(scope))
        throw new errors.InvalidScope('requested scope is not valid for this resource', scope);
      if (!allowed.includes(scope))
        throw new errors.InvalidScope('requested scope is not allowed for this client', scope);
    }
    // No scope asked for: every scope the client holds on this API. The handler reads params.scope after this hook.
    if (requested.length === 0) ctx.oidc.params!.scope = allowed.join(' ');
    return tokenFor(resource, allowed);
  };
}

/**
 * A token of the back office's: for one API, with the scopes the signed-in user's roles give on it today (the grant
 * of the sign-in narrows them again). Before anyone has signed in (the authorization request) the API's staff scopes.
 */
function staffResourceServer<T>(
  ctx: KoaContextWithOIDC,
  resource: string,
  staff: StaffOptions,
  tokenFor: (resource: string, scopes: readonly string[]) => T,
): T {
  if (!RESOURCES[resource])
    throw new errors.InvalidTarget(`unknown resource indicator; known: ${Object.keys(RESOURCES).join(', ')}`);
  if (ctx.oidc.route === 'token' && Array.isArray(ctx.oidc.params?.resource))
    throw new errors.InvalidTarget('one resource indicator per token request: one token per API');
  const accountId = ctx.oidc.account?.accountId;
  const user = accountId === undefined ? undefined : staff.users.get(accountId);
  const scopes = user ? userScopesOn(resource, user) : RESOURCES[resource];
  return tokenFor(resource, scopes);
}

/** The resource of a request that names none: every API when the back office asks to sign in, else none. */
function defaultResourceOf(ctx: KoaContextWithOIDC): string | string[] {
  const all = Object.keys(RESOURCES);
  if (ctx.oidc.client?.clientId === BACK_OFFICE_CLIENT_ID) {
    if (ctx.oidc.route !== 'token') return all; // the authorization request, and its resumption after sign-in
    throw new errors.InvalidTarget(`the resource parameter is required (${all.join(' or ')}): one token per API`);
  }
  const api = apiOfScopes(requestedScopes(ctx));
  if (api) return api;
  throw new errors.InvalidTarget(
    `the resource parameter is required (${all.join(' or ')}), unless every requested scope belongs to one of them`,
  );
}

/**
 * An authorization server for the client credentials grant only, issuing RFC
 * 9068 JWT access tokens for one API at a time, signed by the first key of
 * the ring. Everything oidc-provider would otherwise take from its
 * development-only defaults (keys, storage, interactions, TTLs) is given, so
 * it prints nothing. Client metadata is checked now, not on the first
 * request, so a bad client stops the start.
 */
export async function createProvider({
  issuer,
  keys,
  clients,
  accessTokenTtlSeconds,
  trustProxy,
  logger,
  staff,
}: ProviderOptions): Promise<Provider> {
  const staffConfig = staff ? staffConfiguration(staff) : undefined;
  const configuration: Configuration = {
    adapter: NoStorageAdapter,
    ...staffConfig,
    jwks: providerJwks(keys),
    clients: [
      ...clients.map((client): ClientMetadata => ({
        client_id: client.clientId,
        client_secret: client.clientSecret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        // oidc-provider takes client_secret_post from a client registered for client_secret_basic too.
        token_endpoint_auth_method: 'client_secret_basic',
      })),
      ...(staff ? [backOfficeClient(issuer)] : []),
    ],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', ...(staff ? ['none' as const] : [])],
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    scopes: [],
    responseTypes: staff ? ['code'] : [],
    // Browsers send Origin on every POST, same-origin ones too: a page served at the issuer's origin (the gateway's
    // /swagger) may get tokens, pages elsewhere may not.
    clientBasedCORS: (_ctx, origin) => origin === new URL(issuer).origin,
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      userinfo: { enabled: false },
      rpInitiatedLogout: staffConfig?.features?.rpInitiatedLogout ?? { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // On by default since oidc-provider 9: a proof would bind the token to a key, and the APIs take Bearer tokens
      // only.
      dPoP: { enabled: false },
      resourceIndicators: {
        enabled: true,
        // Without a resource oidc-provider would issue an opaque, stored token no API accepts. A request whose scopes
        // all belong to one API means that API: swagger-ui's client credentials flow (the gateway's /swagger) sends no
        // resource.
        defaultResource: defaultResourceOf,
        useGrantedResource: () => false,
        getResourceServerInfo: resourceServer(clients, accessTokenTtlSeconds, staff),
      },
    },
    ttl: {
      ...staffConfig?.ttl,
      ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? accessTokenTtlSeconds,
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? accessTokenTtlSeconds,
    },
  };
  const provider = new Provider(issuer, configuration);
  provider.proxy = trustProxy;
  if (staff) {
    const { redis } = staff;
    provider.use(async function storageUnavailable(ctx, next) {
      await next();
      // oidc-provider answers a storage failure as its own server_error; Redis out of reach is a moment's outage.
      if (ctx.status === 500 && redis.status !== 'ready') {
        ctx.status = 503;
        ctx.set('Retry-After', '5');
        if (ctx.body && typeof ctx.body === 'object' && 'error' in ctx.body)
          ctx.body = { error: 'temporarily_unavailable', error_description: 'sign-in storage is not reachable' };
      }
    });
  }
  provider.use(async function advertisedScopes(ctx, next) {
    await next();
    // The discovery options only add members; these would advertise scopes and a browser endpoint this issuer does not
    // have.
    const route = (ctx as KoaContextWithOIDC).oidc?.route;
    if (route === 'discovery' && ctx.status === 200) {
      const body = ctx.body as Record<string, unknown>;
      body.scopes_supported = staff ? ['openid', ...ALL_SCOPES] : [...ALL_SCOPES];
      if (!staff) delete body.authorization_endpoint;
    }
  });
  provider.on('grant.success', (ctx) => {
    const { client, params } = ctx.oidc;
    const { scope } = ctx.body as { scope?: string };
    const clientId = client?.clientId;
    const user = ctx.oidc.account?.accountId;
    logger.log({ level: 'info', message: 'access token issued', clientId, user, resource: params?.resource, scope });
  });
  provider.on('grant.error', (ctx, error) => {
    // The client hears a generic invalid_client; the log says why, and which client id was claimed.
    const clientId = ctx.oidc.client?.clientId ?? claimedClientId(ctx);
    logger.warn('token request refused', {
      clientId,
      error: error.error,
      detail: error.error_detail ?? error.error_description,
    });
  });
  provider.on('server_error', (_ctx, error) =>
    logger.error('oidc-provider failed', { error: error.stack ?? String(error) }),
  );
  for (const client of clients) await provider.Client.find(client.clientId);
  return provider;
}
