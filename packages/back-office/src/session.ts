import { InMemoryWebStorage, UserManager, WebStorageStateStore } from 'oidc-client-ts';

/** The APIs behind the gateway, by the resource indicator a token for each names. */
export const STOCK = 'urn:commerce:stock';
export const SALES = 'urn:commerce:sales';
export type Audience = typeof STOCK | typeof SALES;

const CLIENT_ID = 'back-office';
const ISSUER = `${window.location.origin}/identity`;
const APP = `${window.location.origin}/admin/`;
/**
 * Every scope a member of staff may hold (the roles in identity give them): the issuer grants those of the person's
 * roles among them, and each token carries those of its API.
 */
const STAFF_SCOPES = 'stock:read stock:write stock:fulfil orders:read orders:admin orders:refund';
/** Set while the person is on the issuer's sign-out page, so that coming back does not sign them in again at once. */
const SIGNED_OUT = 'back-office:signed-out';

/**
 * oidc-client-ts does the code flow: the PKCE verifier and state (kept in sessionStorage for the round trip) and the
 * sign-out. The tokens stay in memory only: no other script of the origin, nor the next person at this browser, can
 * read them from storage. A reload signs in again, silently while the issuer's session lasts.
 */
const manager = new UserManager({
  authority: ISSUER,
  client_id: CLIENT_ID,
  redirect_uri: `${APP}callback`,
  post_logout_redirect_uri: APP,
  response_type: 'code',
  scope: `openid ${STAFF_SCOPES}`,
  // The code is exchanged for the stock API's token; the sales API's comes from the refresh token (one per API).
  extraTokenParams: { resource: STOCK },
  loadUserInfo: false,
  automaticSilentRenew: false,
  monitorSession: false,
  userStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
  stateStore: new WebStorageStateStore({ store: window.sessionStorage }),
});

interface AccessToken {
  readonly value: string;
  readonly scopes: readonly string[];
  /** Milliseconds since the epoch, a little before the token expires. */
  readonly renewAt: number;
}

interface TokenResponse {
  readonly access_token: string;
  readonly refresh_token?: string;
  readonly expires_in?: number;
  readonly scope?: string;
}

const renewAt = (expiresIn = 60) => Date.now() + Math.max(expiresIn - 30, 5) * 1000;
const scopesOf = (scope = '') => scope.split(' ').filter((name) => name !== '' && name !== 'openid');

/** A signed-in member of staff: who, a token per API (with the scopes it grants), the refresh token renewing them. */
export class Session {
  private readonly tokens = new Map<Audience, AccessToken>();
  private refreshing: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly username: string,
    private readonly idToken: string | undefined,
    private refreshToken: string | undefined,
  ) {}

  static fromUser(user: { profile: { sub: string }; id_token?: string } & TokenResponse): Session {
    const session = new Session(user.profile.sub, user.id_token, user.refresh_token);
    session.tokens.set(STOCK, {
      value: user.access_token,
      scopes: scopesOf(user.scope),
      renewAt: renewAt(user.expires_in),
    });
    return session;
  }

  /** The scopes this person has on every API asked so far (the token responses say). */
  async scopes(): Promise<Set<string>> {
    const audiences = [STOCK, SALES] as const;
    const tokens = await Promise.all(audiences.map((audience) => this.token(audience).catch(() => undefined)));
    return new Set(tokens.flatMap((token) => token?.scopes ?? []));
  }

  /** A token for `audience`, renewed when it is about to expire. */
  async token(audience: Audience): Promise<AccessToken> {
    const held = this.tokens.get(audience);
    if (held && held.renewAt > Date.now()) return held;
    // Refresh tokens rotate, and a used one is refused (with the session): one refresh at a time.
    const next = this.refreshing.then(() => this.refresh(audience));
    this.refreshing = next.catch(() => undefined);
    return next;
  }

  private async refresh(audience: Audience): Promise<AccessToken> {
    const held = this.tokens.get(audience);
    if (held && held.renewAt > Date.now()) return held;
    if (!this.refreshToken) throw new Error('The sign-in has ended: sign in again.');
    const response = await fetch(`${ISSUER}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: CLIENT_ID,
        refresh_token: this.refreshToken,
        resource: audience,
      }),
    });
    const body = (await response.json().catch(() => ({}))) as Partial<TokenResponse> & { error_description?: string };
    if (!response.ok || !body.access_token) {
      this.refreshToken = undefined;
      throw new Error(`The sign-in has ended (${body.error_description ?? response.status}): sign in again.`);
    }
    this.refreshToken = body.refresh_token ?? this.refreshToken;
    const token = { value: body.access_token, scopes: scopesOf(body.scope), renewAt: renewAt(body.expires_in) };
    this.tokens.set(audience, token);
    return token;
  }

  /** To the issuer's sign-out page, which ends its session and comes back to the app. */
  async signOut(): Promise<void> {
    window.sessionStorage.setItem(SIGNED_OUT, 'yes');
    await manager.signoutRedirect(this.idToken ? { id_token_hint: this.idToken } : {});
  }
}

/** Where the app goes once signed in: the page it was opened at. */
interface ReturnTo {
  readonly path: string;
}

export type SignInOutcome =
  | { readonly kind: 'signed-in'; readonly session: Session; readonly path: string }
  | { readonly kind: 'signed-out' }
  | { readonly kind: 'redirecting' };

/**
 * Finishes a sign-in when the issuer sent the browser back with a code; otherwise goes to the issuer to sign in,
 * unless the person has just signed out (then the app offers to sign in again).
 */
export async function signIn(): Promise<SignInOutcome> {
  const url = new URL(window.location.href);
  if (url.pathname === '/admin/callback' && (url.searchParams.has('code') || url.searchParams.has('error'))) {
    const user = await manager.signinCallback();
    if (!user) throw new Error('The issuer sent no sign-in back.');
    const state = user.state as ReturnTo | undefined;
    return { kind: 'signed-in', session: Session.fromUser(user), path: state?.path ?? '/admin/' };
  }
  if (window.sessionStorage.getItem(SIGNED_OUT)) return { kind: 'signed-out' };
  await startSignIn();
  return { kind: 'redirecting' };
}

/** To the issuer's sign-in page, coming back to where the app is now. */
export async function startSignIn(): Promise<void> {
  window.sessionStorage.removeItem(SIGNED_OUT);
  const here = window.location.pathname + window.location.search;
  const path = here.startsWith('/admin/callback') ? '/admin/' : here;
  await manager.signinRedirect({ state: { path } satisfies ReturnTo });
}
