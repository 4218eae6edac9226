import { STAFF_CLIENT_ID } from '@commerce/contracts';
import type { Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import { type ClientMetadata, type Configuration, interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import type { KeyRing } from './keys-file';
import { redisAdapter } from './redis-adapter';
import { RESOURCES } from './resources';
import { scopesOfRoles } from './roles';
import { messagePage, signOutPage } from './sign-in-page';
import type { StaffUser } from './users-file';

/** The back office's client: a single-page app, so public (no secret), held to PKCE with S256. */
export const BACK_OFFICE_CLIENT_ID = STAFF_CLIENT_ID;

export interface StaffOptions {
  /** The issuer's path ('' or e.g. /identity), where the sign-in pages are served too. */
  readonly mountPath: string;
  readonly users: ReadonlyMap<string, StaffUser>;
  readonly redis: Redis;
  readonly keys: KeyRing;
  readonly sessionTtlSeconds: number;
}

/** The back office is served by the gateway at /admin/, on the issuer's origin. */
export function backOfficeUrls(issuer: string) {
  const app = `${new URL(issuer).origin}/admin/`;
  return { app, redirectUris: [app, `${app}callback`], postLogoutRedirectUris: [app] };
}

export function backOfficeClient(issuer: string): ClientMetadata {
  const { redirectUris, postLogoutRedirectUris } = backOfficeUrls(issuer);
  return {
    client_id: BACK_OFFICE_CLIENT_ID,
    client_name: 'Back office',
    application_type: 'web',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: redirectUris,
    post_logout_redirect_uris: postLogoutRedirectUris,
  };
}

/** The scopes a user has on `resource` now: a role taken away shows in the next token, refreshed or not. */
export function userScopesOn(resource: string, user: StaffUser | undefined): string[] {
  const granted = scopesOfRoles(user?.roles ?? []);
  return (RESOURCES[resource] ?? []).filter((scope) => granted.has(scope));
}

/**
 * Cookie signing keys every instance derives alike from the signing keys they share, so a sign-in begun on one
 * instance is resumed on another; a rotation keeps the older keys to check cookies signed before it.
 */
function cookieKeys(keys: KeyRing): string[] {
  return keys.keys.map((key) =>
    createHash('sha256').update(`identity cookies\0${key.kid}\0${key.d}`).digest('base64url'),
  );
}

/** Signed in with nothing more to ask: the back office is the shop's own app, so there is no consent page. */
function loginOnlyPolicy() {
  const policy = interactionPolicy.base();
  policy.remove('consent');
  return policy;
}

/**
 * The grant of a sign-in, made anew from the user's roles on every authorization: the user's scopes on each API, and
 * openid for the ID token the back office signs out with.
 */
function grantOfRoles(users: ReadonlyMap<string, StaffUser>) {
  return async (ctx: KoaContextWithOIDC) => {
    const { client, session, account, provider } = ctx.oidc;
    if (!client || !session || !account) return undefined;
    const user = users.get(account.accountId);
    const grantId = session.grantIdFor(client.clientId);
    const grant =
      (grantId && (await provider.Grant.find(grantId))) ||
      new provider.Grant({ clientId: client.clientId, accountId: account.accountId });
    grant.addOIDCScope('openid');
    for (const resource of Object.keys(RESOURCES)) {
      const scopes = userScopesOn(resource, user);
      if (scopes.length > 0) grant.addResourceScope(resource, scopes.join(' '));
    }
    await grant.save();
    return grant;
  };
}

/**
 * What staff sign-in adds to the provider's configuration: storage in Redis, the login interaction, the back office's
 * client, rotating refresh tokens that end with the session, and RP-initiated sign-out.
 */
export function staffConfiguration({ mountPath, users, redis, keys, sessionTtlSeconds }: StaffOptions): Configuration {
  const stylesheet = `${mountPath}/sign-in.css`;
  return {
    adapter: redisAdapter(redis),
    cookies: { keys: cookieKeys(keys) },
    async findAccount(_ctx, sub) {
      if (!users.has(sub)) return undefined;
      return { accountId: sub, claims: () => ({ sub }) };
    },
    interactions: {
      policy: loginOnlyPolicy(),
      url: (_ctx, interaction) => `${mountPath}/interaction/${interaction.uid}`,
    },
    loadExistingGrant: grantOfRoles(users),
    // Refresh tokens without offline_access: each rotates on use and dies with the session when the user signs out.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // oidc-provider's own error page loads a font from a CDN and styles itself inline, which the CSP forbids.
    renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = messagePage('Sign-in failed', out.error_description ?? out.error, stylesheet);
    },
    routes: { end_session: '/session/end' },
    ttl: {
      AuthorizationCode: 60,
      IdToken: 600,
      Interaction: 600,
      Session: sessionTtlSeconds,
      Grant: sessionTtlSeconds,
      RefreshToken: sessionTtlSeconds,
    },
    features: {
      rpInitiatedLogout: {
        enabled: true,
        logoutSource(ctx, form) {
          ctx.type = 'html';
          ctx.body = signOutPage(form, stylesheet);
        },
        postLogoutSuccessSource(ctx) {
          ctx.type = 'html';
          ctx.body = messagePage('Signed out', 'You have signed out.', stylesheet);
        },
      },
    },
  };
}
