/** The APIs this issuer mints tokens for (RFC 8707 resource indicators, the tokens' `aud`), and the scopes each one knows. */
export const RESOURCES: Readonly<Record<string, readonly string[]>> = {
  'urn:commerce:stock': ['stock:read', 'stock:write', 'stock:reserve'],
  'urn:commerce:sales': ['orders:read', 'orders:write', 'orders:admin'],
};

export const ALL_SCOPES: readonly string[] = Object.values(RESOURCES).flat();
