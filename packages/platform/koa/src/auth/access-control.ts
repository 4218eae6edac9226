import type { Middleware } from 'koa';
import type { Logger } from '../logger';
import { authenticate } from './authenticate';
import { requireScope } from './require-scope';
import type { TokenVerifier } from './token-verifier';

/** What a service's routers guard their routes with, whether tokens are checked or not. */
export interface AccessControl {
  /** True when tokens are checked; false when the service runs open. */
  readonly enabled: boolean;
  /** Verifies the bearer token (mounted once, before the API's routers); lets everything through when open. */
  readonly authenticate: Middleware;
  /** A route's guard: the token must grant one of `scopes`; lets everything through when open. */
  require(...scopes: [string, ...string[]]): Middleware;
}

const pass: Middleware = (_ctx, next) => next();

/**
 * Token checks when the service has a verifier (AUTH_ISSUER is set), and none
 * when it has not: then it says so once, as a warning, so that an open
 * service is never open by accident without a line in its log.
 */
export function accessControl(verifier: TokenVerifier | undefined, logger: Logger): AccessControl {
  if (!verifier) {
    logger.warn('access tokens are not checked: AUTH_ISSUER is not set, so every caller may do everything');
    return { enabled: false, authenticate: pass, require: () => pass };
  }
  return { enabled: true, authenticate: authenticate(verifier), require: requireScope };
}
