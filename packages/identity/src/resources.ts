/** The APIs this issuer mints tokens for (RFC 8707 resource indicators, the tokens' `aud`), and the scopes each one knows. */
export const RESOURCES: Readonly<Record<string, readonly string[]>> = {
  'urn:commerce:stock': ['stock:read', 'stock:write', 'stock:reserve'],
  // orders:pay is the payment provider's: it confirms an order's payment, whoever the buyer (ADR 0016).
  'urn:commerce:sales': ['orders:read', 'orders:write', 'orders:admin', 'orders:pay'],
};

export const ALL_SCOPES: readonly string[] = Object.values(RESOURCES).flat();
