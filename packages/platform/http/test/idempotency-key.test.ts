import Router from '@koa/router';
import { expect } from 'chai';
import {
  authenticate,
  createHttpApp,
  idempotencyKeyOf,
  InvalidTokenError,
  problemsFor,
  type TokenVerifier,
} from '../src';
import { type Listening, listen, recordingLogger } from './support';

/** Tokens named after their subject. */
const verifier: TokenVerifier = {
  async verify(token) {
    if (token.startsWith('shop-')) return { subject: token, clientId: token, scopes: [] };
    throw new InvalidTokenError('The access token is malformed.');
  },
};

/**
 * The scopes records were written under by the copies stock and sales kept
 * before (`reserve-stock:` and `place-order:` plus a SHA-256 of the subject,
 * base64url, `anonymous` without tokens), spelled out so that a change of
 * format, which would lose every live record, fails here.
 */
const SCOPE_OF = {
  'shop-a': 'reserve-stock:VALRKUBTDlLwFuKkmtpiy5T3WQi0z2INbBNAYC2cbkE',
  'shop-b': 'reserve-stock:wjoAC35GbPfcf33Gt-A30UnNtr2pNA2erYQ6guvH4UU',
  anonymous: 'reserve-stock:Lxg6TmRJOvPzd_dF7aUCNjzT5-9uTSZtREdY3gqF_Mg',
};

describe('idempotencyKeyOf: an Idempotency-Key is its caller’s own', () => {
  let server: Listening;
  before(async () => {
    const { logger } = recordingLogger();
    const http = createHttpApp({ logger, toProblem: problemsFor<never>({}) });
    const key = (ctx: Parameters<typeof idempotencyKeyOf>[0]) => {
      ctx.body = idempotencyKeyOf(ctx, 'reserve-stock', { quantity: 1 }) ?? { none: true };
    };
    const guarded = new Router({ prefix: '/api' });
    guarded.use(authenticate(verifier));
    guarded.post('/holds', key);
    const open = new Router({ prefix: '/open' });
    open.post('/holds', key);
    http.route(guarded);
    http.route(open);
    server = await listen(http.app);
  });
  after(async () => server?.close());

  const post = async (path: string, headers: Record<string, string>) => {
    const response = await fetch(`${server.url}${path}`, { method: 'POST', headers });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('scopes the key by the token’s subject: two subjects’ same key and payload are two requests', async () => {
    const a = await post('/api/holds', { authorization: 'Bearer shop-a', 'idempotency-key': 'k-1' });
    const b = await post('/api/holds', { authorization: 'Bearer shop-b', 'idempotency-key': 'k-1' });
    expect(a).to.deep.include({ status: 200 });
    expect(a.body).to.include({ scope: SCOPE_OF['shop-a'], key: 'k-1' });
    expect(b.body).to.include({ scope: SCOPE_OF['shop-b'], key: 'k-1', fingerprint: a.body.fingerprint });
    expect(
      (await post('/api/holds', { authorization: 'Bearer shop-a', 'idempotency-key': 'k-1' })).body,
      'the same subject again',
    ).to.deep.equal(a.body);
  });

  it('scopes it by `anonymous` on a route nobody authenticates (a service without tokens: every caller is the same one)', async () => {
    expect((await post('/open/holds', { 'idempotency-key': 'k-1' })).body).to.include({
      scope: SCOPE_OF.anonymous,
      key: 'k-1',
    });
  });

  it('answers no key when none is sent, and a 400 for a key that is not 1 to 255 visible ASCII characters', async () => {
    expect((await post('/api/holds', { authorization: 'Bearer shop-a' })).body).to.deep.equal({ none: true });
    const bad = await post('/api/holds', { authorization: 'Bearer shop-a', 'idempotency-key': 'a b' });
    expect(bad.status).to.equal(400);
    expect(bad.body).to.include({ code: 'VALIDATION_FAILED' });
  });
});
