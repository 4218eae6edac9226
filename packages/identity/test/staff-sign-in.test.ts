import { Apis } from '@commerce/contracts';
import { createTokenVerifier } from '@platform/http';
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { hashPassword, saveUser } from '../src';
import { decodePart, type IdentityUnderTest, scratchFolder, startIdentity } from '@commerce/identity/testing';
import { attribute, Browser, freshAddress, pkce } from './browser-client';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const MAX_FAILURES = 3;
const STOCK = Apis.stock.audience;
const SALES = Apis.sales.audience;
/** Usernames of this run: counts left in Redis by an earlier run are not theirs. */
const run = randomBytes(4).toString('hex');
const CLERK = { username: `clerk-${run}`, password: 'a clerk’s long password', roles: ['stock-clerk'] as const };
const MANAGER = {
  username: `manager-${run}`,
  password: 'a manager’s long password',
  roles: ['order-manager'] as const,
};

describe('staff sign-in: authorization code with PKCE for the back office', function () {
  let files: ReturnType<typeof scratchFolder>;
  let identity: IdentityUnderTest;
  let issuer = '';
  let redirectUri = '';
  const form = (uid: string) => `${issuer}/interaction/${uid}/login`;

  before(async () => {
    files = scratchFolder();
    for (const user of [CLERK, MANAGER])
      saveUser(files.usersFile, {
        username: user.username,
        passwordHash: await hashPassword(user.password),
        roles: [...user.roles],
      });
    identity = await startIdentity(files, {
      redisUrl: REDIS_URL,
      trustProxy: 'true',
      signInMaxFailures: MAX_FAILURES,
      signInLockSeconds: 60,
      signInFailureDelayMs: 0,
    });
    issuer = identity.service.issuer;
    redirectUri = `${new URL(issuer).origin}/admin/callback`;
  });
  after(async () => {
    await identity.stop();
    files.remove();
  });

  function authorizeUrl(params: Record<string, string>): string {
    const query = new URLSearchParams({
      client_id: 'back-office',
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: 'openid stock:read stock:write stock:fulfil orders:read orders:admin orders:refund',
      state: 'state-1',
      ...params,
    });
    return `${issuer}/auth?${query.toString()}`;
  }

  /** Starts an authorization in `browser`; answers the interaction's uid its redirect names. */
  async function startSignIn(browser: Browser, challenge: string): Promise<string> {
    const response = await browser.get(authorizeUrl({ code_challenge: challenge, code_challenge_method: 'S256' }));
    expect(response.status).to.equal(303);
    const location = response.headers.get('location')!;
    expect(location).to.match(/\/interaction\/[\w-]+$/);
    return location.split('/').pop()!;
  }

  /** Signs in through the form; answers the code the redirect to the back office carries. */
  async function signIn(browser: Browser, user: { username: string; password: string }) {
    const { verifier, challenge } = pkce();
    const uid = await startSignIn(browser, challenge);
    const page = await browser.get(`${issuer}/interaction/${uid}`);
    expect(page.status).to.equal(200);
    const html = await page.text();
    expect(attribute(html, /<form[^>]*>/, 'action')).to.equal(new URL(form(uid)).pathname);
    const signedIn = await browser.post(form(uid), { username: user.username, password: user.password });
    expect(signedIn.status, await signedIn.clone().text()).to.equal(303);
    const resumed = await browser.get(new URL(signedIn.headers.get('location')!, issuer).href);
    expect(resumed.status).to.equal(303);
    const back = new URL(resumed.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).to.equal(redirectUri);
    expect(back.searchParams.get('state')).to.equal('state-1');
    expect(back.searchParams.get('error'), back.search).to.equal(null);
    return { code: back.searchParams.get('code')!, verifier };
  }

  function token(fields: Record<string, string>): Promise<Response> {
    return fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'back-office', ...fields }),
    });
  }

  const exchange = (code: string, verifier: string, resource = STOCK) =>
    token({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, resource });

  it('serves a sign-in form with Username, Password and Sign in, under a strict Content-Security-Policy', async () => {
    const browser = new Browser(freshAddress());
    const uid = await startSignIn(browser, pkce().challenge);
    const page = await browser.get(`${issuer}/interaction/${uid}`);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).to.include("default-src 'none'").and.include("form-action 'self'").and.not.include('unsafe-inline');
    const html = await page.text();
    expect(html).to.match(/<label for="username">Username<\/label>/);
    expect(html).to.match(/<label for="password">Password<\/label>/);
    expect(html).to.match(/<input id="password" name="password" type="password"/);
    expect(html).to.match(/<button type="submit">Sign in<\/button>/);
    expect(html).not.to.match(/<script|style=|https?:\/\//);
  });

  it('signs in, exchanges the code for a token per API carrying the user’s scopes, rotates the refresh token, and signs out', async () => {
    const browser = new Browser(freshAddress());
    const { code, verifier } = await signIn(browser, CLERK);

    const stockResponse = await exchange(code, verifier);
    expect(stockResponse.status, await stockResponse.clone().text()).to.equal(200);
    const stock = (await stockResponse.json()) as Record<string, string>;
    expect(stock).to.include({ token_type: 'Bearer' });
    const stockClaims = decodePart(stock.access_token!, 1);
    expect(stockClaims).to.include({ iss: issuer, aud: STOCK, sub: CLERK.username, client_id: 'back-office' });
    expect(stockClaims.scope).to.equal('stock:read stock:write stock:fulfil');
    const stockVerifier = createTokenVerifier({ issuer, audience: STOCK });
    expect(await stockVerifier.verify(stock.access_token!)).to.deep.include({
      subject: CLERK.username,
      clientId: 'back-office',
      scopes: ['stock:read', 'stock:write', 'stock:fulfil'],
    });

    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: stock.refresh_token!,
      resource: SALES,
    });
    expect(refreshed.status).to.equal(200);
    const sales = (await refreshed.json()) as Record<string, string>;
    const salesClaims = decodePart(sales.access_token!, 1);
    expect(salesClaims).to.include({ aud: SALES, sub: CLERK.username, scope: 'orders:read' });
    const salesVerifier = createTokenVerifier({ issuer, audience: SALES });
    expect(await salesVerifier.verify(sales.access_token!)).to.deep.include({
      subject: CLERK.username,
      scopes: ['orders:read'],
    });
    await stockVerifier.verify(sales.access_token!).then(
      () => expect.fail('a sales token passed stock’s check'),
      (error: Error) => expect(error.message).to.match(/meant for another/),
    );
    expect(sales.refresh_token).to.be.a('string').and.not.equal(stock.refresh_token);
    const reused = await token({ grant_type: 'refresh_token', refresh_token: stock.refresh_token!, resource: STOCK });
    expect(reused.status).to.equal(400);
    expect(await reused.json()).to.include({ error: 'invalid_grant' });

    // Reusing a refresh token revoked its grant, not the session: the app authorizes again without a password.
    const fresh = pkce();
    const silent = await browser.get(authorizeUrl({ code_challenge: fresh.challenge, code_challenge_method: 'S256' }));
    expect(silent.status).to.equal(303);
    const again = {
      code: new URL(silent.headers.get('location')!).searchParams.get('code')!,
      verifier: fresh.verifier,
    };
    const tokens = (await (await exchange(again.code, again.verifier)).json()) as Record<string, string>;
    const endSession = new URL(`${issuer}/session/end`);
    endSession.search = new URLSearchParams({
      client_id: 'back-office',
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: `${new URL(issuer).origin}/admin/`,
    }).toString();
    const ending = await browser.get(endSession.href);
    expect(ending.status).to.equal(200);
    expect(ending.headers.get('content-security-policy')).to.include("default-src 'none'");
    const question = await ending.text();
    const action = attribute(question, /<form[^>]*>/, 'action')!;
    const xsrf = attribute(question, /<input[^>]*name="xsrf"[^>]*>/, 'value')!;
    const confirmed = await browser.post(new URL(action, issuer).href, { xsrf, logout: 'yes' });
    expect(confirmed.status).to.equal(303);
    expect(confirmed.headers.get('location')).to.equal(`${new URL(issuer).origin}/admin/`);

    const afterSignOut = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      resource: STOCK,
    });
    expect(afterSignOut.status).to.equal(400);
    // The session is over: authorizing again asks for the password.
    await startSignIn(browser, pkce().challenge);
  });

  it('gives an order manager the scopes of the role: orders:admin and orders:refund on sales, stock:read on stock', async () => {
    const { code, verifier } = await signIn(new Browser(freshAddress()), MANAGER);
    const stock = (await (await exchange(code, verifier)).json()) as Record<string, string>;
    expect(decodePart(stock.access_token!, 1).scope).to.equal('stock:read');
    const sales = (await (
      await token({ grant_type: 'refresh_token', refresh_token: stock.refresh_token!, resource: SALES })
    ).json()) as Record<string, string>;
    expect(decodePart(sales.access_token!, 1).scope).to.equal('orders:read orders:admin orders:refund');
  });

  it('refuses an authorization without PKCE, or with plain PKCE, sending the error back to the app', async () => {
    const refused: Record<string, string>[] = [{}, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }];
    for (const params of refused) {
      const response = await new Browser(freshAddress()).get(authorizeUrl(params));
      expect(response.status).to.equal(303);
      const back = new URL(response.headers.get('location')!);
      expect(`${back.origin}${back.pathname}`).to.equal(redirectUri);
      expect(back.searchParams.get('error'), JSON.stringify(params)).to.equal('invalid_request');
    }
  });

  it('refuses a redirect URI it does not know, on its own page and sending nothing there', async () => {
    const { challenge } = pkce();
    for (const redirect of ['https://elsewhere.example/admin/callback', `${new URL(issuer).origin}/admin/other`]) {
      const response = await new Browser(freshAddress()).get(
        authorizeUrl({ redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256' }),
      );
      expect(response.status).to.equal(400);
      expect(response.headers.get('location')).to.equal(null);
      expect(await response.text()).to.include('redirect_uri');
    }
  });

  it('refuses a code used twice, and a code with the wrong verifier', async () => {
    const { code } = await signIn(new Browser(freshAddress()), CLERK);
    const wrong = await exchange(code, pkce().verifier);
    expect(wrong.status).to.equal(400);
    expect(await wrong.json()).to.include({ error: 'invalid_grant' });

    const second = await signIn(new Browser(freshAddress()), CLERK);
    const first = await exchange(second.code, second.verifier);
    expect(first.status).to.equal(200);
    const { refresh_token: refreshToken } = (await first.json()) as Record<string, string>;
    const twice = await exchange(second.code, second.verifier);
    expect(twice.status).to.equal(400);
    expect(await twice.json()).to.include({ error: 'invalid_grant' });
    // The second use revoked what the first one issued.
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: refreshToken!, resource: STOCK });
    expect(refreshed.status).to.equal(400);
  });

  /** Posts the form once for `username` from `browser`; answers the status and the page. */
  async function tryPassword(browser: Browser, username: string, password: string) {
    const uid = await startSignIn(browser, pkce().challenge);
    const response = await browser.post(form(uid), { username, password });
    return { status: response.status, page: await response.text() };
  }

  it('says the same for a wrong password and an unknown username, without telling which', async () => {
    const wrongPassword = await tryPassword(new Browser(freshAddress()), CLERK.username, 'not the password');
    const unknownUser = await tryPassword(new Browser(freshAddress()), `nobody-${run}`, CLERK.password);
    for (const answer of [wrongPassword, unknownUser]) {
      expect(answer.status).to.equal(401);
      expect(answer.page).to.include('Wrong username or password.');
    }
    const anonymous = (page: string, username: string) =>
      page.replace(username, '').replace(/\/interaction\/[\w-]+\//, '/interaction/…/');
    expect(anonymous(wrongPassword.page, CLERK.username)).to.equal(anonymous(unknownUser.page, `nobody-${run}`));
  });

  it(`locks a username after ${MAX_FAILURES} consecutive failures, from any address, even for the right password`, async () => {
    const user = {
      username: `locked-${run}`,
      password: 'the right password, at last',
      roles: ['stock-clerk'] as const,
    };
    saveUser(identity.files.usersFile, {
      ...user,
      passwordHash: await hashPassword(user.password),
      roles: ['stock-clerk'],
    });
    await identity.service.reload();
    for (let failure = 1; failure <= MAX_FAILURES; failure++)
      expect((await tryPassword(new Browser(freshAddress()), user.username, `guess ${failure}`)).status).to.equal(401);
    const locked = await tryPassword(new Browser(freshAddress()), user.username, user.password);
    expect(locked.status).to.equal(429);
    expect(locked.page).to.include('Too many failed sign-ins');
    // Others still sign in, from anywhere.
    expect((await signIn(new Browser(freshAddress()), CLERK)).code).to.be.a('string');
  });

  it(`locks an address after ${MAX_FAILURES} failures, whatever usernames it tried`, async () => {
    const address = freshAddress();
    for (let failure = 1; failure <= MAX_FAILURES; failure++)
      expect((await tryPassword(new Browser(address), `guess-${failure}-${run}`, 'a guess')).status).to.equal(401);
    expect((await tryPassword(new Browser(address), MANAGER.username, MANAGER.password)).status).to.equal(429);
    expect((await signIn(new Browser(freshAddress()), MANAGER)).code).to.be.a('string');
  });
});

describe('staff sign-in while Redis is out of reach', function () {
  let files: ReturnType<typeof scratchFolder>;
  let identity: IdentityUnderTest;
  before(async () => {
    files = scratchFolder();
    saveUser(files.usersFile, {
      username: 'alice',
      passwordHash: await hashPassword(CLERK.password),
      roles: ['admin'],
    });
    identity = await startIdentity(files, { redisUrl: 'redis://127.0.0.1:1' });
  });
  after(async () => {
    await identity.stop();
    files.remove();
  });

  it('answers 503 with Retry-After, never a 500, and still issues client-credentials tokens', async () => {
    const { issuer } = identity.service;
    const query = new URLSearchParams({
      client_id: 'back-office',
      response_type: 'code',
      redirect_uri: `${new URL(issuer).origin}/admin/callback`,
      scope: 'openid stock:read',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const response = await new Browser(freshAddress()).get(`${issuer}/auth?${query.toString()}`);
    expect(response.status).to.equal(503);
    expect(response.headers.get('retry-after')).to.equal('5');
    expect(await identity.token('inventory-sync', STOCK)).to.be.a('string');
  });
});
