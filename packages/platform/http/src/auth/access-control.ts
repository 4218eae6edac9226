import type { Middleware } from 'koa';
import type { Logger } from '../logger';
import { authenticate } from './authenticate';
import { requireScope } from './require-scope';
import { createTokenVerifier, type TokenVerifier } from './token-verifier';

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

/** The auth settings every service reads (see @platform/runtime's authSettings). */
export interface AuthSettings {
  /** Empty: tokens are not checked. */
  readonly authIssuer: string;
  readonly authAudience: string;
  /** Empty: {authIssuer}/.well-known/openid-configuration. */
  readonly authDiscoveryUrl: string;
}

/** The verifier the settings ask for, or undefined when AUTH_ISSUER is empty. */
export function tokenVerifierFor(
  { authIssuer, authAudience, authDiscoveryUrl }: AuthSettings,
  logger: Logger,
): TokenVerifier | undefined {
  if (!authIssuer) return undefined;
  return createTokenVerifier({
    issuer: authIssuer,
    audience: authAudience,
    ...(authDiscoveryUrl && { discoveryUrl: authDiscoveryUrl }),
    logger,
  });
}
