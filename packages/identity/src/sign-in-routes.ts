import Router from '@koa/router';
import { RequestError } from '@platform/http';
import type { Logger } from '@platform/runtime';
import type { Context } from 'koa';
import { setTimeout as sleep } from 'node:timers/promises';
import { errors, type Provider } from 'oidc-provider';
import { DECOY_HASH, verifyPassword } from './passwords';
import type { SignInGuard } from './sign-in-guard';
import { messagePage, PAGE_CSP, signInPage, STYLESHEET } from './sign-in-page';
import type { StaffUser } from './users-file';

/** What the sign-in pages need of the running service, read per request: a reload may change any of it. */
export interface StaffSignIn {
  readonly provider: Provider;
  readonly users: ReadonlyMap<string, StaffUser>;
  readonly guard: SignInGuard;
}

const WRONG = 'Wrong username or password.';
const LOCKED = 'Too many failed sign-ins. Signing in is paused for a while; try again later.';
const EXPIRED = 'This sign-in has expired or was already used. Go back to the back office and sign in again.';
const UNAVAILABLE = 'Signing in is not possible for a moment. Try again shortly.';
const MAX_FORM_BYTES = 4_096;

async function formOf(ctx: Context): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded'))
    throw new RequestError('UNSUPPORTED_MEDIA_TYPE', 'The sign-in form is sent as application/x-www-form-urlencoded.');
  let body = '';
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    body += chunk.toString('utf8');
    if (body.length > MAX_FORM_BYTES) throw new RequestError('PAYLOAD_TOO_LARGE', 'The sign-in form is too large.');
  }
  return new URLSearchParams(body);
}

function showPage(ctx: Context, status: number, html: string): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set({ 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
  ctx.body = html;
}

/**
 * The pages of oidc-provider's login interaction, under the issuer's path: the form (GET), its answer (POST), and
 * their stylesheet. A wrong password and an unknown username get the same answer, after the same scrypt work; failures
 * are counted per username and per address, slow the next answer down, and lock both once there are too many.
 */
export function signInRoutes(mountPath: string, current: () => StaffSignIn | undefined, logger: Logger): Router {
  const router = new Router(mountPath ? { prefix: mountPath } : {});
  const stylesheet = `${mountPath}/sign-in.css`;
  const action = (uid: string) => `${mountPath}/interaction/${encodeURIComponent(uid)}/login`;

  /** The interaction the browser's cookie names, if it is the one in the path and still running. */
  async function interactionOf(ctx: Context, staff: StaffSignIn, uid: string) {
    try {
      const details = await staff.provider.interactionDetails(ctx.req, ctx.res);
      return details.uid === uid && details.prompt.name === 'login' ? details : undefined;
    } catch (error) {
      // No cookie, an expired interaction, or one finished already; anything else (Redis down) is not the browser's.
      if (error instanceof errors.OIDCProviderError) return undefined;
      throw error;
    }
  }

  /** The user whose password this is, 'locked', or undefined; failures counted, and answered more slowly. */
  async function checkedUser(staff: StaffSignIn, username: string, password: string, address: string) {
    const { guard } = staff;
    if (guard.isLocked(await guard.failures(username, address))) {
      logger.warn('sign-in refused: locked', { username, address });
      return 'locked' as const;
    }
    const user = staff.users.get(username);
    const matches = await verifyPassword(password, user?.passwordHash ?? DECOY_HASH);
    if (!user || !matches) {
      const failures = await guard.failed(username, address);
      logger.warn('sign-in failed', { username, address, failures, known: Boolean(user) });
      await sleep(guard.delayMs(failures));
      return undefined;
    }
    await guard.succeeded(username);
    return user;
  }

  router.get('/sign-in.css', async function signInStylesheet(ctx, next) {
    if (!current()) {
      await next();
      return;
    }
    ctx.type = 'text/css';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = STYLESHEET;
  });

  /** Redis out of reach: a page that says to try again, and one log line, rather than a 500. */
  async function unavailableOnError(ctx: Context, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (error instanceof RequestError) throw error;
      logger.error('sign-in unavailable', { error: String(error) });
      showPage(ctx, 503, messagePage('Sign in', UNAVAILABLE, stylesheet));
    }
  }

  router.get('/interaction/:uid', async function signInForm(ctx, next) {
    const staff = current();
    if (!staff) {
      await next();
      return;
    }
    await unavailableOnError(ctx, async () => {
      if (!(await interactionOf(ctx, staff, ctx.params.uid!)))
        return showPage(ctx, 400, messagePage('Sign in', EXPIRED, stylesheet));
      showPage(ctx, 200, signInPage({ action: action(ctx.params.uid!), stylesheet }));
    });
  });

  router.post('/interaction/:uid/login', async function signIn(ctx, next) {
    const staff = current();
    if (!staff) {
      await next();
      return;
    }
    const uid = ctx.params.uid!;
    const form = await formOf(ctx);
    await unavailableOnError(ctx, async () => {
      if (!(await interactionOf(ctx, staff, uid)))
        return showPage(ctx, 400, messagePage('Sign in', EXPIRED, stylesheet));
      const username = (form.get('username') ?? '').trim();
      const again = (status: number, error: string) =>
        showPage(ctx, status, signInPage({ action: action(uid), stylesheet, username, error }));
      const user = await checkedUser(staff, username, form.get('password') ?? '', ctx.ip);
      if (user === 'locked') return again(429, LOCKED);
      if (!user) return again(401, WRONG);
      logger.info('signed in', { username, address: ctx.ip });
      await staff.provider.interactionFinished(
        ctx.req,
        ctx.res,
        { login: { accountId: user.username } },
        { mergeWithLastSubmission: false },
      );
      ctx.respond = false;
    });
  });

  return router;
}
