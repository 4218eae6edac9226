import { UnavailableError } from '@platform/kernel';
import { createRemoteJWKSet, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger';
import { InvalidTokenError } from './invalid-token-error';
import type { Principal } from './principal';

export interface TokenVerifierOptions {
  /** The issuer exactly as tokens carry it in `iss` (e.g. https://api.example.com/identity). */
  readonly issuer: string;
  /** This service's own audience (e.g. urn:commerce:stock): a token for another API is refused. The gateway accepts any of several. */
  readonly audience: string | readonly string[];
  /** Where to read the issuer's metadata, when not at {issuer}/.well-known/openid-configuration (an internal address, say). */
  readonly discoveryUrl?: string;
  /** Leeway for clocks that disagree, on `exp` and `nbf`. */
  readonly clockToleranceSeconds?: number;
  /** Longest the discovery document or the key set may take to arrive. */
  readonly timeoutMs?: number;
  /** Told once when the issuer cannot be reached, and once when it can again. */
  readonly logger?: Logger;
}

export interface TokenVerifier {
  /** The caller a token names, or InvalidTokenError (401), or UnavailableError when the issuer's keys cannot be had (503). */
  verify(token: string): Promise<Principal>;
}

/**
 * How the key set follows a rotation without a restart. The identity service
 * signs with a new key as soon as it publishes it, so the first token with a
 * new `kid` reaches us while our cached set lacks it. jose refetches the set
 * on an unknown `kid`, but at most once per `cooldownDuration` (30 s by
 * default) and refuses at once inside it, which would turn away good tokens
 * for up to 30 s after a rotation. So the cooldown is 1 s, and a token whose
 * `kid` is unknown while cooling down waits for the cooldown to end and gets
 * one refetch (shared by every request waiting), instead of a 401. The issuer
 * sees at most one fetch a second from junk `kid`s. The cache also expires
 * after 10 minutes, which is how a key the issuer withdrew stops being trusted.
 */
const JWKS_COOLDOWN_MS = 1_000;
const JWKS_CACHE_MAX_AGE_MS = 600_000;

type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>;

/** Refusals that are the token's fault; anything else from the key set is the issuer's. */
const isTokenFault = (error: unknown) => error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys;

function unavailable(issuer: string, cause: unknown): UnavailableError {
  return new UnavailableError('AUTH_ISSUER_UNAVAILABLE', `The token issuer ${issuer} cannot be reached to check the access token.`, 1, { cause });
}

function keyResolver(keySet: RemoteKeySet, issuer: string): JWTVerifyGetKey {
  let refetch: Promise<void> | undefined;
  return async function issuerKey(header, token) {
    const joseMayRefetch = !keySet.coolingDown;
    try {
      try {
        return await keySet(header, token);
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey) || joseMayRefetch) throw error;
        refetch ??= sleep(JWKS_COOLDOWN_MS)
          .then(() => keySet.reload())
          .finally(() => (refetch = undefined));
        await refetch;
        return await keySet(header, token);
      }
    } catch (error) {
      throw isTokenFault(error) ? error : unavailable(issuer, error);
    }
  };
}

/** What the client is told about a refused token: plain words, no quotes (RFC 6750 error_description). */
function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The access token has expired.';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return `The access token has no ${error.claim} claim.`;
    switch (error.claim) {
      case 'nbf':
        return 'The access token is not valid yet.';
      case 'iss':
        return 'The access token comes from another issuer.';
      case 'aud':
        return 'The access token is meant for another service.';
      case 'typ':
        return 'The token is not an access token (typ at+jwt).';
      default:
        return `The access token has an invalid ${error.claim} claim.`;
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'The access token is not signed with ES256.';
  if (error instanceof errors.JWKSNoMatchingKey) return 'The access token is signed with a key the issuer does not publish.';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'The access token signature is not valid.';
  return 'The access token is malformed.';
}

function principalFrom(payload: JWTPayload): Principal {
  const { sub, client_id: clientId, scope } = payload;
  if (typeof sub !== 'string' || typeof clientId !== 'string' || (scope !== undefined && typeof scope !== 'string')) {
    throw new InvalidTokenError('The access token has claims of the wrong type.');
  }
  return { subject: sub, clientId, scopes: scope ? scope.split(' ').filter(Boolean) : [] };
}

/**
 * Verifies RFC 9068 access tokens with jose against the issuer's published
 * keys (RFC 8725 is the checklist, see ADR 0011). The issuer's metadata is
 * read on first use, not at start, so a service starts while its issuer is
 * down and answers 503 until it is back.
 */
export function createTokenVerifier({ issuer, audience, discoveryUrl = `${issuer}/.well-known/openid-configuration`, clockToleranceSeconds = 5, timeoutMs = 5_000, logger }: TokenVerifierOptions): TokenVerifier {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  let failing = false;

  const discover = async (): Promise<JWTVerifyGetKey> => {
    let metadata: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const response = await fetch(discoveryUrl, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual', headers: { accept: 'application/json' } });
      if (response.status !== 200) throw new Error(`${discoveryUrl} answered ${response.status}`);
      metadata = (await response.json()) as typeof metadata;
    } catch (error) {
      throw unavailable(issuer, error);
    }
    // RFC 8414 §3.3: metadata naming another issuer must not be used.
    if (metadata.issuer !== issuer) throw unavailable(issuer, new Error(`${discoveryUrl} names the issuer ${JSON.stringify(metadata.issuer)}, not ${issuer}`));
    if (typeof metadata.jwks_uri !== 'string' || !/^https?:\/\//.test(metadata.jwks_uri)) throw unavailable(issuer, new Error(`${discoveryUrl} has no usable jwks_uri`));
    const keySet = createRemoteJWKSet(new URL(metadata.jwks_uri), { cooldownDuration: JWKS_COOLDOWN_MS, cacheMaxAge: JWKS_CACHE_MAX_AGE_MS, timeoutDuration: timeoutMs });
    return keyResolver(keySet, issuer);
  };

  const verifyWith = async (token: string): Promise<Principal> => {
    keys ??= discover().catch((error: unknown) => {
      keys = undefined;
      throw error;
    });
    const { payload } = await jwtVerify(token, await keys, {
      issuer,
      audience: typeof audience === 'string' ? audience : [...audience],
      algorithms: ['ES256'],
      typ: 'at+jwt',
      clockTolerance: clockToleranceSeconds,
      requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id'],
    });
    return principalFrom(payload);
  };

  return {
    async verify(token) {
      try {
        const principal = await verifyWith(token);
        if (failing) logger?.info('the token issuer answers again', { issuer });
        failing = false;
        return principal;
      } catch (error) {
        if (error instanceof UnavailableError) {
          if (!failing) logger?.warn('the token issuer cannot be reached; requests that need a token answer 503', { issuer, error: String(error.cause) });
          failing = true;
          throw error;
        }
        if (error instanceof InvalidTokenError) throw error;
        if (error instanceof errors.JOSEError) throw new InvalidTokenError(describe(error), { cause: error });
        throw error;
      }
    },
  };
}
