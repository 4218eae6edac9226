import type { Context } from 'koa';

/**
 * Who is calling, as a verified access token says: the client (for client credentials, also the subject) and what it
 * may do.
 */
export interface Principal {
  readonly subject: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
}

/** The principal `authenticate` put on the request, or undefined on a route nobody authenticated. */
export function principalOf(ctx: Context): Principal | undefined {
  return (ctx.state as { principal?: Principal }).principal;
}
