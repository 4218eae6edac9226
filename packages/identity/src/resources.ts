import { type ApiName, Apis, scopesOf } from '@commerce/contracts';

/** The APIs this issuer mints tokens for (RFC 8707 resources, the tokens' `aud`), and the scopes each one knows. */
export const RESOURCES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  (Object.keys(Apis) as ApiName[]).map((api) => [Apis[api].audience, scopesOf(api)]),
);

export const ALL_SCOPES: readonly string[] = Object.values(RESOURCES).flat();
