import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { type ApiUnderTest, json, type StartApi } from '../support/api-under-test';

/** Where the subscriptions point: nothing is delivered in these tests, so nothing need listen there. */
const TARGET = 'http://127.0.0.1:9/hook';

/** The webhook subscriptions' router (webhooks/webhook-subscriptions-router.ts), mounted as WEBHOOKS=on mounts it. */
export function webhookSubscriptionsHttpSuite(backend: string, start: StartApi): void {
  describe(`Webhook subscriptions over HTTP on ${backend}`, () => {
    let api: ApiUnderTest;
    beforeEach(async function () {
      api = await start(this);
    });
    afterEach(async () => api.stop());

    it('manages subscriptions: 201 with the secret once, reads without it, 404 for an unknown id, 400 for a bad body', async () => {
      const created = await api.request(
        '/api/webhook-subscriptions',
        json({ url: TARGET, events: ['*'], description: 'ERP' }),
      );
      expect(created.status).to.equal(201);
      const body = (await created.json()) as { id: string; secret: string; url: string; events: string[] };
      expect(body).to.include({ url: TARGET, description: 'ERP' });
      expect(body.secret).to.match(/^whsec_/);
      expect(created.headers.get('location')).to.equal(`/api/webhook-subscriptions/${body.id}`);

      const list = (await (await api.request('/api/webhook-subscriptions')).json()) as Record<string, unknown>[];
      expect(list.map((s) => s.id)).to.deep.equal([body.id]);
      expect(list[0]).to.not.have.property('secret');
      const one = (await (await api.request(`/api/webhook-subscriptions/${body.id}`)).json()) as Record<
        string,
        unknown
      >;
      expect(one).to.not.have.property('secret');

      const unknown = await api.request(`/api/webhook-subscriptions/${randomUUID()}`);
      expect(unknown.status).to.equal(404);
      expect(unknown.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(await unknown.json()).to.include({ code: 'WEBHOOK_SUBSCRIPTION_NOT_FOUND' });

      const bad = await api.request('/api/webhook-subscriptions', json({ url: 'ftp://x', events: [], colour: 'red' }));
      expect(bad.status).to.equal(400);
      const problem = (await bad.json()) as { errors: Record<string, string[]> };
      expect(Object.keys(problem.errors).sort()).to.deep.equal(['colour', 'events', 'url']);

      const rotated = await api.request(`/api/webhook-subscriptions/${body.id}/rotate-secret`, { method: 'POST' });
      expect(((await rotated.json()) as { secret: string }).secret)
        .to.match(/^whsec_/)
        .and.not.equal(body.secret);
      expect((await api.request(`/api/webhook-subscriptions/${body.id}`, { method: 'DELETE' })).status).to.equal(204);
      expect((await api.request(`/api/webhook-subscriptions/${body.id}`, { method: 'DELETE' })).status).to.equal(404);
    });
  });
}
