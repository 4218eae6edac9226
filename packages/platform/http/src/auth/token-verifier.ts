import { issuerEndpoint, issuerOrigins } from '@platform/runtime';
import { UnavailableError } from '@platform/kernel';
import { errors, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions, jwtVerify } from 'jose';
import type { Logger } from '../logger';
import { InvalidTokenError } from './invalid-token-error';
import { IssuerKeys, type KeySetFetch, KeySetUnavailableError } from './issuer-keys';
import type { Principal } from './principal';
import { tracedGet } from './traced-fetch';
import { VerifiedTokens } from './verified-tokens';

export interface TokenVerifierOptions {
  /** The issuer exactly as tokens carry it in `iss` (e.g. https://api.example.com/identity). */
  readonly issuer: string;
  /**
   * This service's own audience (e.g. urn:commerce:stock): a token for another API is refused. The gateway accepts any
   * of several.
   */
  readonly audience: string | readonly string[];
  /**
   * Where to read the issuer's metadata, when not at {issuer}/.well-known/openid-configuration (an internal address,
   * say).
   */
  readonly discoveryUrl?: string;
  /** Leeway for clocks that disagree, on `exp` and `nbf`. */
  readonly clockToleranceSeconds?: number;
  /** Longest the discovery document or the key set may take to arrive. */
  readonly timeoutMs?: number;
  /** Told once when the issuer cannot be reached, and once when it can again. */
  readonly logger?: Logger;
  /** Age after which the key set is fetched again (a withdrawn key stops being trusted); 10 minutes. */
  readonly keySetMaxAgeMs?: number;
  /** Least time between two fetches of the key set; 1 s. */
  readonly keySetCooldownMs?: number;
  /** How many verified tokens are remembered until their `exp`; 0 verifies every request from scratch. */
  readonly verifiedTokensCapacity?: number;
}

export interface TokenVerifier {
  /**
   * The caller a token names, or InvalidTokenError (401), or UnavailableError when the issuer's keys cannot be had
   * (503).
   */
  verify(token: string): Promise<Principal>;
}

/**
 * The key set's timings (see IssuerKeys). The identity service signs with a
 * new key as soon as it publishes it, so an unknown `kid` is fetched for at
 * once, at most once a second (the cooldown), instead of jose's 30 s during
 * which good tokens would be turned away. The set is fetched again after 10
 * minutes, which is how a key the issuer withdrew stops being trusted; when
 * that fetch fails the last good set stays in use (ADR 0011).
 */
const JWKS_COOLDOWN_MS = 1_000;
const JWKS_CACHE_MAX_AGE_MS = 600_000;
/** About 10 MB at most, for ten thousand clients' current tokens. */
const VERIFIED_TOKENS = 10_000;

function unavailable(issuer: string, cause: unknown): UnavailableError {
  return new UnavailableError(
    'AUTH_ISSUER_UNAVAILABLE',
    `The token issuer ${issuer} cannot be reached to check the access token.`,
    1,
    { cause },
  );
}

/**
 * The issuer answered, but with metadata this verifier must not use: a setting or the issuer is wrong, and waiting will
 * not mend it.
 */
class RefusedMetadataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedMetadataError';
  }
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
  if (error instanceof errors.JWKSNoMatchingKey)
    return 'The access token is signed with a key the issuer does not publish.';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'The access token signature is not valid.';
  return 'The access token is malformed.';
}

function principalFrom(payload: JWTPayload): Principal {
  const { sub, client_id: clientId, scope } = payload;
  if (typeof sub !== 'string' || typeof clientId !== 'string' || (scope !== undefined && typeof scope !== 'string')) {
    throw new InvalidTokenError('The access token has claims of the wrong type.');
  }
  return Object.freeze({
    subject: sub,
    clientId,
    scopes: Object.freeze(scope ? scope.split(' ').filter(Boolean) : []),
  });
}

/**
 * Whether the issuer answers, told to the logger once when it stops (or its
 * metadata is refused) and once when it answers again, not on every request.
 */
class IssuerReachability {
  private failing = false;

  constructor(
    private readonly issuer: string,
    private readonly discoveryUrl: string,
    private readonly logger: Logger | undefined,
  ) {}

  down(error: unknown, stale: boolean): void {
    if (!this.failing) this.tellDown(error, stale);
    this.failing = true;
  }

  up(): void {
    if (this.failing) this.logger?.info('the token issuer answers again', { issuer: this.issuer });
    this.failing = false;
  }

  private tellDown(error: unknown, stale: boolean): void {
    const { issuer, discoveryUrl, logger } = this;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof RefusedMetadataError) {
      logger?.error(
        'the token issuer’s metadata is refused; requests that need a token answer 503 until it is mended',
        {
          issuer,
          discoveryUrl,
          error: cause.message,
        },
      );
    } else if (stale) {
      logger?.warn(
        'the token issuer cannot be reached; tokens are checked against the keys fetched last, and tokens signed with a key not among them answer 503',
        { issuer, error: String(error) },
      );
    } else {
      const reason = String(cause ?? error);
      logger?.warn('the token issuer cannot be reached; requests that need a token answer 503', {
        issuer,
        error: reason,
      });
    }
  }
}

interface IssuerMetadata {
  readonly issuer?: unknown;
  readonly jwks_uri?: unknown;
}

/** The issuer's metadata as the discovery URL answers it, or UnavailableError. */
async function fetchMetadata(issuer: string, discoveryUrl: string, timeoutMs: number): Promise<IssuerMetadata> {
  try {
    const headers = { accept: 'application/json' };
    const response = await tracedGet(discoveryUrl, {
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
      headers,
    });
    if (response.status !== 200) throw new Error(`${discoveryUrl} answered ${response.status}`);
    return (await response.json()) as IssuerMetadata;
  } catch (error) {
    throw unavailable(issuer, error);
  }
}

/**
 * The key set's URL the metadata names, once the metadata is shown to be the issuer's and the URL to be on a trusted
 * origin; otherwise UnavailableError caused by RefusedMetadataError.
 */
function keySetUrlOf(
  metadata: IssuerMetadata,
  issuer: string,
  discoveryUrl: string,
  trusted: ReadonlySet<string>,
): string {
  const refuse = (message: string) => unavailable(issuer, new RefusedMetadataError(message));
  // RFC 8414 §3.3: metadata naming another issuer must not be used.
  if (metadata.issuer !== issuer) {
    throw refuse(`${discoveryUrl} names the issuer ${JSON.stringify(metadata.issuer)}, not ${issuer}`);
  }
  const jwks = issuerEndpoint(metadata.jwks_uri, trusted);
  if (jwks.status === 'unusable') throw refuse(`${discoveryUrl} has no usable jwks_uri`);
  if (jwks.status === 'elsewhere') {
    const where = `the origin of the issuer or of the discovery URL (${[...trusted].join(' or ')})`;
    throw refuse(`${discoveryUrl} names the key set ${jwks.url}, which is not on ${where}; its keys are not trusted`);
  }
  return jwks.url;
}

/** A failed verification as the caller is answered: 503 when the issuer's keys cannot be had, 401 for a bad token. */
function refusalOf(error: unknown, issuer: string): unknown {
  if (error instanceof KeySetUnavailableError) return unavailable(issuer, error.cause);
  if (error instanceof errors.JOSEError) return new InvalidTokenError(describe(error), { cause: error });
  return error;
}

/**
 * Verifies RFC 9068 access tokens with jose against the issuer's published
 * keys (RFC 8725 is the checklist, see ADR 0011). The issuer's metadata is
 * read on first use, not at start, so a service starts while its issuer is
 * down and answers 503 until it is back. A token verified once is remembered
 * until its `exp` (VerifiedTokens), so a client's next requests cost a lookup.
 */
export function createTokenVerifier({
  issuer,
  audience,
  discoveryUrl = `${issuer}/.well-known/openid-configuration`,
  clockToleranceSeconds = 5,
  timeoutMs = 5_000,
  logger,
  keySetMaxAgeMs = JWKS_CACHE_MAX_AGE_MS,
  keySetCooldownMs = JWKS_COOLDOWN_MS,
  verifiedTokensCapacity = VERIFIED_TOKENS,
}: TokenVerifierOptions): TokenVerifier {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  /** Set once discovery has named the key set. */
  let keySet: IssuerKeys | undefined;
  const reachability = new IssuerReachability(issuer, discoveryUrl, logger);
  const verified = new VerifiedTokens(verifiedTokensCapacity);
  const checks: JWTVerifyOptions = {
    issuer,
    audience: typeof audience === 'string' ? audience : [...audience],
    algorithms: ['ES256'],
    typ: 'at+jwt',
    clockTolerance: clockToleranceSeconds,
    requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id'],
  };
  // The key set must be served where the issuer is, or where its metadata is read (issuerOrigins says why).
  const trustedOrigins = issuerOrigins(issuer, discoveryUrl);

  async function discover(): Promise<JWTVerifyGetKey> {
    const metadata = await fetchMetadata(issuer, discoveryUrl, timeoutMs);
    const jwksUri = keySetUrlOf(metadata, issuer, discoveryUrl, trustedOrigins);
    const timings = { timeoutMs, maxAgeMs: keySetMaxAgeMs, cooldownMs: keySetCooldownMs };
    keySet = new IssuerKeys({ jwksUri, ...timings, onFetch: keySetFetched });
    return keySet.resolve;
  }

  function keySetFetched(outcome: KeySetFetch): void {
    if (!outcome.ok) return reachability.down(outcome.error, outcome.stale);
    // A token verified with a key the issuer no longer publishes must be verified again, and refused.
    if (outcome.withdrawn) verified.clear();
    reachability.up();
  }

  async function verifyFromScratch(token: string): Promise<Principal> {
    keys ??= discover().catch((error: unknown) => {
      keys = undefined;
      throw error;
    });
    const { payload } = await jwtVerify(token, await keys, checks);
    const principal = principalFrom(payload);
    verified.set(token, principal, payload.exp! * 1000, Date.now());
    return principal;
  }

  return {
    async verify(token) {
      keySet?.keepFresh();
      const known = verified.get(token, Date.now());
      if (known) return known;
      try {
        return await verifyFromScratch(token);
      } catch (error) {
        if (error instanceof UnavailableError) reachability.down(error, false);
        throw refusalOf(error, issuer);
      }
    },
  };
}
