import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { outsideTrace } from '@platform/runtime';
import { setTimeout as sleep } from 'node:timers/promises';
import { tracedGet } from './traced-fetch';

export interface IssuerKeysOptions {
  /** The issuer's jwks_uri, from its discovery document. */
  readonly jwksUri: string;
  /** Longest one fetch of the key set may take. */
  readonly timeoutMs: number;
  /**
   * Age after which the key set is fetched again (in the background: requests keep using the current one meanwhile).
   */
  readonly maxAgeMs: number;
  /** Least time between two fetches, whatever asks for them. */
  readonly cooldownMs: number;
  /** Told of each fetch that failed while keys were held, and of the first that works again. */
  readonly onFetch?: (outcome: KeySetFetch) => void;
}

/**
 * How a fetch of the key set went: `withdrawn` when a key held before is gone, `stale` when the last good set is kept.
 */
export type KeySetFetch =
  | { readonly ok: true; readonly withdrawn: boolean }
  | { readonly ok: false; readonly error: unknown; readonly stale: boolean };

/** The key set could not be fetched and none is held: nothing can be verified. */
export class KeySetUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The issuer’s key set cannot be fetched.', { cause });
    this.name = 'KeySetUnavailableError';
  }
}

/**
 * The issuer's published keys, as a verifier looks them up: fetched on first
 * use, fetched again in the background once older than `maxAgeMs` (so a key
 * the issuer withdrew stops being trusted), and at once for a `kid` it does
 * not hold (a rotation: the issuer signs with a new key as soon as it
 * publishes it). When a fetch fails, the last good key set stays in use: an
 * issuer that is down cannot tell us of a change, and the keys we hold are
 * still the ones its tokens are signed with. Only a token whose key we do not
 * hold, or a verifier that never got a key set, needs the issuer to answer.
 *
 * Fetches are at most one per `cooldownMs`, shared by every request that
 * needs one: a token whose `kid` is unknown inside the cooldown waits for its
 * end and the one fetch there, instead of being refused (jose's remote key set
 * would refuse it), so junk `kid`s cost the issuer at most one fetch a cooldown.
 */
export class IssuerKeys {
  private keys:
    | { readonly lookup: JWTVerifyGetKey; readonly published: ReadonlySet<string>; readonly fetchedAt: number }
    | undefined;
  private lastAttemptAt = Number.NEGATIVE_INFINITY;
  private lastFailure: unknown;
  private fetching: Promise<void> | undefined;

  constructor(private readonly options: IssuerKeysOptions) {}

  /** The key for a token's protected header, in jose's key-resolver shape. */
  readonly resolve: JWTVerifyGetKey = async (header, token) => {
    const held = this.keys ?? (await this.firstKeys());
    this.keepFresh();
    try {
      return await held.lookup(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // Not one of ours as of our last fetch: a rotation may have published it since.
      this.failFastWhileDown();
      await this.fetchSoon();
      const now = this.keys!;
      // Still the same set: the fetch failed, and whether the token is good cannot be told.
      if (now === held) throw new KeySetUnavailableError(this.lastFailure);
      return await now.lookup(header, token);
    }
  };

  /**
   * Has the set fetched again, in the background, once it is older than its
   * maximum age (and the cooldown has passed): asked on every verification,
   * those answered from memory too, so that a withdrawn key is noticed. The request that happens to ask does not wait
   * for that fetch, so it is no part of the request's trace.
   */
  keepFresh(): void {
    if (
      this.keys &&
      Date.now() - this.keys.fetchedAt >= this.options.maxAgeMs &&
      Date.now() - this.lastAttemptAt >= this.options.cooldownMs
    )
      void outsideTrace(() => this.fetchSoon());
  }

  private async firstKeys(): Promise<NonNullable<IssuerKeys['keys']>> {
    this.failFastWhileDown();
    await this.fetchSoon();
    if (!this.keys) throw new KeySetUnavailableError(this.lastFailure);
    return this.keys;
  }

  /**
   * The last fetch failed and the cooldown is not over: the issuer is down, say so now rather than after the cooldown.
   */
  private failFastWhileDown(): void {
    if (this.lastFailure !== undefined && !this.fetching && Date.now() - this.lastAttemptAt < this.options.cooldownMs)
      throw new KeySetUnavailableError(this.lastFailure);
  }

  /** One fetch, shared by every caller, once the cooldown since the previous one has passed. */
  private fetchSoon(): Promise<void> {
    this.fetching ??= (async () => {
      const wait = this.lastAttemptAt + this.options.cooldownMs - Date.now();
      if (wait > 0) await sleep(wait);
      await this.fetch();
    })().finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  private async fetch(): Promise<void> {
    this.lastAttemptAt = Date.now();
    try {
      const response = await tracedGet(this.options.jwksUri, {
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: 'manual',
        headers: { accept: 'application/jwk-set+json, application/json' },
      });
      if (response.status !== 200) throw new Error(`${this.options.jwksUri} answered ${response.status}`);
      const set = (await response.json()) as JSONWebKeySet;
      // jose checks the set's shape here, and imports each key once, on first use.
      const lookup = createLocalJWKSet(set);
      const published = new Set(set.keys.map((key) => JSON.stringify(key)));
      const withdrawn = this.keys !== undefined && [...this.keys.published].some((key) => !published.has(key));
      this.keys = { lookup, published, fetchedAt: Date.now() };
      this.lastFailure = undefined;
      this.options.onFetch?.({ ok: true, withdrawn });
    } catch (error) {
      this.lastFailure = error;
      this.options.onFetch?.({ ok: false, error, stale: this.keys !== undefined });
    }
  }
}
