import { UnavailableError } from '@platform/kernel';
import {
  abandonHttpClientSpan,
  endHttpClientSpan,
  issuerEndpoint,
  issuerOrigins,
  startHttpClientSpan,
} from '@platform/runtime';
import { request } from 'undici';

export interface ClientCredentialsOptions {
  /** The issuer's URL: its discovery document names the token endpoint. */
  readonly issuer: string;
  /**
   * Where to read the issuer's discovery document when not at
   * {issuer}/.well-known/openid-configuration (AUTH_DISCOVERY_URL): the
   * issuer's internal address, so that sales asks it directly rather than
   * through the public gateway its tokens name.
   */
  readonly discoveryUrl?: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The API the tokens are for (RFC 8707), e.g. urn:commerce:stock. */
  readonly resource: string;
  /** The scopes to ask for, space-separated. */
  readonly scope: string;
  /** How long before its expiry a token is renewed. */
  readonly renewBeforeSeconds?: number;
  readonly timeoutMs?: number;
  /** The clock (epoch ms), for tests. */
  readonly now?: () => number;
}

interface Cached {
  readonly token: string;
  readonly renewAt: number;
}

/**
 * Access tokens for calling another service as this one (OAuth 2.0 client
 * credentials): fetched when first needed, shared by concurrent callers,
 * renewed before they expire, dropped when the other service refuses one.
 * Nothing is kept but the current token, so any number of instances each
 * hold their own.
 */
export class ClientCredentials {
  private cached: Cached | undefined;
  private pending: Promise<Cached> | undefined;
  private tokenEndpoint: string | undefined;

  private readonly now: () => number;

  constructor(private readonly options: ClientCredentialsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** A token valid for a while yet. */
  async token(): Promise<string> {
    if (this.cached && this.now() < this.cached.renewAt) return this.cached.token;
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    this.cached = await this.pending;
    return this.cached.token;
  }

  /** The other service refused `token` (401): the next call fetches a new one. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async fetchToken(): Promise<Cached> {
    const { clientId, clientSecret, resource, scope, renewBeforeSeconds = 30 } = this.options;
    const endpoint = (this.tokenEndpoint ??= await this.discoverTokenEndpoint());
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64');
    const body = await this.json(endpoint, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }).toString(),
    });
    const { access_token: token, expires_in: expiresIn } = body as { access_token?: unknown; expires_in?: unknown };
    if (typeof token !== 'string' || typeof expiresIn !== 'number')
      throw this.unavailable('its token endpoint answered without access_token and expires_in');
    return { token, renewAt: this.now() + Math.max(1, expiresIn - renewBeforeSeconds) * 1000 };
  }

  /**
   * The token endpoint the discovery document names, once it is on the
   * issuer's origin or the discovery URL's: the client secret goes there, so
   * an endpoint anywhere else (a changed document, or its answer changed on
   * the way) is refused as the token verifier refuses such a key set. Nothing
   * is remembered from a refusal: the next token asks discovery again.
   */
  private async discoverTokenEndpoint(): Promise<string> {
    const discovery =
      this.options.discoveryUrl || `${this.options.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const { token_endpoint: named } = (await this.json(discovery, { method: 'GET' })) as { token_endpoint?: unknown };
    const origins = issuerOrigins(this.options.issuer, discovery);
    const endpoint = issuerEndpoint(named, origins);
    if (endpoint.status === 'unusable')
      throw this.unavailable(`its discovery document ${discovery} names no usable token_endpoint`);
    if (endpoint.status === 'elsewhere') {
      throw this.unavailable(
        `its discovery document ${discovery} names the token endpoint ${endpoint.url}, which is not on the origin of the issuer or of the discovery URL (${[...origins].join(' or ')}); the client secret is not sent there`,
      );
    }
    return endpoint.url;
  }

  private async json(
    url: string,
    init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string },
  ): Promise<unknown> {
    const timeoutMs = this.options.timeoutMs ?? 2_000;
    // Inside a trace (the request that first needs a token), a client span of it whose traceparent goes along.
    const attempt = startHttpClientSpan(init.method, url);
    let response;
    try {
      response = await request(url, {
        ...init,
        headers: { ...init.headers, ...attempt?.headers },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      if (attempt) abandonHttpClientSpan(attempt.span, error);
      throw this.unavailable(`${url} could not be reached (${(error as Error).message})`, error);
    }
    if (attempt) endHttpClientSpan(attempt.span, response.statusCode);
    const text = await response.body.text();
    if (response.statusCode !== 200)
      throw this.unavailable(`${url} answered ${response.statusCode}: ${text.slice(0, 200)}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw this.unavailable(`${url} answered a body that is not JSON`);
    }
  }

  /** No token: the call that needed one cannot be made, and the caller may try again shortly. */
  private unavailable(reason: string, cause?: unknown): UnavailableError {
    return new UnavailableError(
      'IDENTITY_UNAVAILABLE',
      `No access token from the issuer ${this.options.issuer}: ${reason}.`,
      5,
      { cause },
    );
  }
}
