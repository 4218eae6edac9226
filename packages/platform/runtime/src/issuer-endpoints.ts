/**
 * The origins an issuer's discovery document may send us to: the issuer's
 * own, and the one the document was read from (AUTH_DISCOVERY_URL, an
 * internal address whose answers name it). Anywhere else, whoever could
 * change the document (or its answer on the way) would choose whose keys we
 * trust, or where our client secret goes. Origins are compared whole: scheme,
 * host and port. A setting that is not a URL adds no origin.
 */
export function issuerOrigins(issuer: string, discoveryUrl: string): ReadonlySet<string> {
  return new Set([issuer, discoveryUrl].filter((url) => URL.canParse(url)).map((url) => new URL(url).origin));
}

export type IssuerEndpoint =
  /** An http(s) URL on one of the origins: it may be used. */
  | { readonly status: 'trusted'; readonly url: string }
  /** Not an http(s) URL at all. */
  | { readonly status: 'unusable' }
  /** A URL on another origin: nothing may be fetched from it nor sent to it. */
  | { readonly status: 'elsewhere'; readonly url: string };

/**
 * What an endpoint the discovery document names (`jwks_uri`, `token_endpoint`) is worth, for `origins` from
 * issuerOrigins.
 */
export function issuerEndpoint(value: unknown, origins: ReadonlySet<string>): IssuerEndpoint {
  if (typeof value !== 'string' || !/^https?:\/\//.test(value) || !URL.canParse(value)) return { status: 'unusable' };
  return origins.has(new URL(value).origin) ? { status: 'trusted', url: value } : { status: 'elsewhere', url: value };
}
