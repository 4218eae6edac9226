import { STAFF_CLIENT_ID } from '@commerce/contracts';
import {
  decodePart,
  forgedToken,
  type IdentityUnderTest,
  SALES,
  scratchFolder,
  startIdentity,
} from '@commerce/identity/testing';
import { Money } from '@commerce/shared-kernel';
import { expect } from 'chai';
import { type SalesAppUnderTest, startSalesApp } from './sales-app';
import { callWith } from './sales-contract';

/** What stock's catalogue quotes here. */
const LAMP = { id: 1, name: 'Lamp', price: Money.fromDecimalString('10') };

/**
 * The router with tokens checked against a real issuer: each buyer sees and acts on its own orders only (and alone
 * sees its payment's client secret), refunds take orders:refund, an admin sees every order, and nothing answered to a
 * token is cached.
 */
describe('The orders router, one buyer and another', function () {
  this.timeout(30_000);
  let files: ReturnType<typeof scratchFolder>;
  let identity: IdentityUnderTest;
  let sales: SalesAppUnderTest;
  before(async () => {
    files = scratchFolder();
    identity = await startIdentity(files);
    sales = await startSalesApp({ products: [LAMP], authIssuer: identity.service.issuer });
  });
  after(async () => {
    await sales?.close();
    await identity?.stop();
    files?.remove();
  });

  const as = async (client: string) => {
    const token = await identity.token(client, SALES);
    return (path: string, init: RequestInit = {}) => callWith(`${sales.url}${path}`, token, init);
  };
  const place = (call: (path: string, init?: RequestInit) => Promise<Response>) =>
    call('/api/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ lines: [{ productId: LAMP.id, quantity: 1 }] }),
    });

  it('keeps each buyer’s orders to that buyer: another buyer’s order is a 404, exactly as one that does not exist', async () => {
    const [a, b] = [await as('buyer-a'), await as('buyer-b')];
    const placed = (await (await place(a)).json()) as { id: string; buyer: string };
    expect(placed.buyer).to.equal('buyer-a');
    const missing = '00000000-0000-7000-8000-000000000000';
    for (const [what, path, init] of [
      ['read', '', {}],
      ['cancel', '/cancel', { method: 'POST' }],
    ] as const) {
      const theirs = await b(`/api/orders/${placed.id}${path}`, init);
      const nobodys = await b(`/api/orders/${missing}${path}`, init);
      expect(theirs.status, what).to.equal(404);
      const [theirsBody, nobodysBody] = [
        (await theirs.json()) as Record<string, unknown>,
        (await nobodys.json()) as Record<string, unknown>,
      ];
      const same = (body: Record<string, unknown>, id: string) => ({
        ...body,
        detail: String(body.detail).replace(id, '<id>'),
        instance: String(body.instance).replace(id, '<id>'),
      });
      expect(same(theirsBody, placed.id), what).to.deep.equal(same(nobodysBody, missing));
    }
    const listed = (await (await b('/api/orders')).json()) as { id: string }[];
    expect(listed.map((order) => order.id)).not.to.include(placed.id);
    expect((await a(`/api/orders/${placed.id}`)).status).to.equal(200);
  });

  it('lets a member of staff read every order with orders:read, as a clerk who ships them, and act on none', async () => {
    const placed = (await (await place(await as('buyer-a'))).json()) as { id: string };
    // The issuer's own claims for a buyer, as its back-office client would issue them to a clerk signed in there.
    const claims = decodePart(await identity.token('buyer-a', SALES, 'orders:read'), 1);
    const clerk = (changes: Record<string, unknown>) => forgedToken(identity.files.keysFile, claims, changes);
    const staff = await clerk({ client_id: STAFF_CLIENT_ID, sub: 'clerk' });
    expect((await callWith(`${sales.url}/api/orders/${placed.id}`, staff)).status).to.equal(200);
    const listed = (await (await callWith(`${sales.url}/api/orders`, staff)).json()) as { id: string }[];
    expect(listed.map((order) => order.id)).to.include(placed.id);
    expect((await callWith(`${sales.url}/api/orders/${placed.id}/cancel`, staff, { method: 'POST' })).status).to.equal(
      403,
    );
    // The same scope from any other client is a buyer's: its own orders only.
    const buyer = await clerk({ client_id: 'buyer-b', sub: 'buyer-b' });
    expect((await callWith(`${sales.url}/api/orders/${placed.id}`, buyer)).status).to.equal(404);
  });

  it('keeps an Idempotency-Key to its buyer: another buyer’s same key and lines place that buyer’s own order, never a replay of the first', async () => {
    const [a, b] = [await as('buyer-a'), await as('buyer-b')];
    const key = { 'Idempotency-Key': `checkout-${Date.now()}` };
    const placeWith = async (call: typeof a) => {
      const response = await call('/api/orders', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...key },
        body: JSON.stringify({ lines: [{ productId: LAMP.id, quantity: 1 }] }),
      });
      return {
        status: response.status,
        replayed: response.headers.get('idempotent-replayed'),
        order: (await response.json()) as { id: string; buyer: string },
      };
    };
    const first = await placeWith(a);
    const other = await placeWith(b);
    expect([other.status, other.replayed, other.order.buyer]).to.deep.equal([202, null, 'buyer-b']);
    expect(other.order.id).not.to.equal(first.order.id);
    const [againA, againB] = [await placeWith(a), await placeWith(b)];
    expect([againA.status, againA.replayed, againA.order.id]).to.deep.equal([202, 'true', first.order.id]);
    expect([againB.status, againB.replayed, againB.order.id]).to.deep.equal([202, 'true', other.order.id]);
  });

  it('takes refunds from orders:refund alone, on any order: the buyer and orders:admin get 403 naming the scope', async () => {
    const a = await as('buyer-a');
    const placed = (await (await place(a)).json()) as { id: string };
    const refund = (call: typeof a, id = placed.id) =>
      call(`/api/orders/${id}/refunds`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify({ amount: 1, reason: 'r' }),
      });
    for (const client of ['buyer-a', 'orders-admin']) {
      const refused = await refund(await as(client));
      expect(refused.status, client).to.equal(403);
      expect(refused.headers.get('www-authenticate'), client).to.equal(
        'Bearer error="insufficient_scope", scope="orders:refund"',
      );
      expect(await refused.json(), client).to.include({ code: 'INSUFFICIENT_SCOPE' });
    }
    const refunds = await as('refunds');
    // It reaches buyer-a's order by its id (nothing was captured here: 409, not 404).
    const early = await refund(refunds);
    expect(early.status).to.equal(409);
    expect(await early.json()).to.include({ code: 'PAYMENT_NOT_CAPTURED' });
    expect((await refund(refunds, '00000000-0000-7000-8000-000000000000')).status).to.equal(404);
    // It refunds; it reads nothing.
    expect((await refunds(`/api/orders/${placed.id}`)).status).to.equal(403);
  });

  it("shows the payment's client secret to the order's buyer alone, not to orders:admin", async () => {
    const a = await as('buyer-a');
    const placed = (await (await place(a)).json()) as { id: string };
    const order = (await sales.store.orders.findById(placed.id))!;
    await sales.store.unitOfWork.run((tx) =>
      tx.orders.save(order.reservationConfirmed(crypto.randomUUID(), new Date(), new Date()).order, order.version),
    );
    await sales.paymentWork.execute(placed.id);
    type Shown = { payment: { intentId: string; clientSecret?: string } };
    const buyers = (await (await a(`/api/orders/${placed.id}`)).json()) as Shown;
    expect(buyers.payment.clientSecret).to.equal(`pi_${placed.id}_secret_fake`);
    const admin = await as('orders-admin');
    const admins = (await (await admin(`/api/orders/${placed.id}`)).json()) as Shown;
    expect(admins.payment).to.have.property('intentId', buyers.payment.intentId);
    expect(admins.payment).not.to.have.property('clientSecret');
    const listed = (await (await admin('/api/orders')).json()) as Shown[];
    expect(listed.every((o) => !o.payment || !('clientSecret' in o.payment))).to.equal(true);
  });

  it('marks every answer to a token no-store, a 304 and another buyer’s 404 included: what a buyer sees is theirs alone', async () => {
    const [a, b] = [await as('buyer-a'), await as('buyer-b')];
    const placed = await place(a);
    const { id } = (await placed.json()) as { id: string };
    const read = await a(`/api/orders/${id}`);
    const answers = [
      placed,
      read,
      await a(`/api/orders/${id}`, { headers: { 'if-none-match': read.headers.get('etag')! } }),
      await a('/api/orders'),
      await b(`/api/orders/${id}`),
    ];
    expect(answers.map((answer) => [answer.status, answer.headers.get('cache-control')])).to.deep.equal([
      [202, 'no-store'],
      [200, 'no-store'],
      [304, 'no-store'],
      [200, 'no-store'],
      [404, 'no-store'],
    ]);
  });

  it('lets orders:admin see and act on every buyer’s orders', async () => {
    const a = await as('buyer-a');
    const placed = (await (await place(a)).json()) as { id: string };
    const admin = await as('orders-admin');
    expect((await admin(`/api/orders/${placed.id}`)).status).to.equal(200);
    expect(
      ((await (await admin('/api/orders?limit=1000')).json()) as { id: string }[]).map((order) => order.id),
    ).to.include(placed.id);
    const cancelled = await admin(`/api/orders/${placed.id}/cancel`, { method: 'POST' });
    expect(cancelled.status).to.equal(200);
    expect(await cancelled.json()).to.include({ status: 'cancelled', buyer: 'buyer-a' });
  });
});
