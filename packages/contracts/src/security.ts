/**
 * The scopes of each API, by what they let a client do. ADR 0015 says which
 * route needs which; the routers and the OpenAPI files' `security` name them
 * from here, and a test holds the files to it.
 */
export const Scopes = {
  stock: {
    read: 'stock:read',
    write: 'stock:write',
    reserve: 'stock:reserve',
    fulfil: 'stock:fulfil',
    webhooks: 'webhooks:manage',
  },
  sales: { read: 'orders:read', write: 'orders:write', admin: 'orders:admin', refund: 'orders:refund' },
} as const;

/**
 * The back office's client at the issuer: its tokens are a signed-in member of staff's. With them, `orders:read` reads
 * every order, not only the holder's own (a stock clerk ships the shop's orders); what staff may do stays the scopes'.
 */
export const STAFF_CLIENT_ID = 'back-office';

export type ApiName = keyof typeof Scopes;

/** A scope of one API. */
export type ScopeOf<A extends ApiName> = Extract<(typeof Scopes)[A][keyof (typeof Scopes)[A]], string>;

/** Any API's scope. */
export type Scope = { [A in ApiName]: ScopeOf<A> }[ApiName];

export interface Api<A extends ApiName> {
  /** The resource indicator a client asks a token for (RFC 8707), and so the token's `aud`. */
  readonly audience: `urn:commerce:${string}`;
  /** Every scope the API knows, with what it lets a client do (as the Authorize dialogs show it). */
  readonly scopes: Readonly<Record<ScopeOf<A>, string>>;
}

/** The APIs the identity service issues tokens for. A scope belongs to one API: the issuer tells the API from it. */
export const Apis = {
  stock: {
    audience: 'urn:commerce:stock',
    scopes: {
      [Scopes.stock.read]: 'Read products, their ledger and reservations',
      [Scopes.stock.write]: 'Create, change and delete products; adjust stock',
      [Scopes.stock.reserve]: 'Hold, commit and release stock',
      [Scopes.stock.fulfil]: 'Ship orders and take returns',
      [Scopes.stock.webhooks]: 'Subscribe to webhooks, read their deliveries and replay them',
    },
  },
  sales: {
    audience: 'urn:commerce:sales',
    scopes: {
      [Scopes.sales.read]: 'Read your orders',
      [Scopes.sales.write]: 'Place and cancel your orders',
      [Scopes.sales.admin]: 'Read and act on every order',
      // A merchant's: money goes back for any order, whoever the buyer; orders:admin alone does not give it.
      [Scopes.sales.refund]: 'Refund what was captured for any order',
    },
  },
} as const satisfies { readonly [A in ApiName]: Api<A> };

/** The scopes `api` knows, in the order above. */
export function scopesOf<A extends ApiName>(api: A): readonly ScopeOf<A>[] {
  return Object.keys(Apis[api].scopes) as ScopeOf<A>[];
}
