import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { json, type ServiceUnderTest, startServiceUnderTest } from './support';

/**
 * What a validating proxy found the service answering while docs/openapi.yaml said otherwise; each answer here also
 * goes through the description's check (support's request), so a status it does not list fails.
 */
describe('the stock service answers what docs/openapi.yaml says', () => {
  let api: ServiceUnderTest;
  before(async function () {
    api = await startServiceUnderTest(
      'memory',
      this,
      {},
      {
        webhooks: 'on',
        webhookSecretsKey: randomBytes(32).toString('base64'),
        webhookAllowPrivateTargets: 'true',
      },
    );
  });
  after(async () => api?.stop());

  const problemOf = async (response: Response) => {
    expect(response.headers.get('content-type')).to.equal('application/problem+json');
    return (await response.json()) as { code: string; errors?: Record<string, string[]> };
  };

  it('refuses `ids` with a space in it, as its pattern does', async () => {
    const response = await api.request('/api/products?ids=1,%202');
    expect(response.status).to.equal(400);
    expect(await problemOf(response)).to.have.nested.property('errors.ids');
    expect((await api.request('/api/products?ids=1,2')).status).to.equal(200);
  });

  it('refuses an empty Idempotency-Key instead of taking it for none', async () => {
    const response = await api.request(
      '/api/products',
      json({ name: 'Lamp', price: 1, quantityInStock: 1 }, { headers: { 'idempotency-key': '' } }),
    );
    expect(response.status).to.equal(400);
    expect(await problemOf(response)).to.have.nested.property('errors.Idempotency-Key');
  });

  it('refuses a query parameter on health and metrics, as on every operation that takes none', async () => {
    for (const path of ['/health/live?verbose=1', '/health/ready?verbose=1', '/metrics?format=json']) {
      const response = await api.request(path);
      expect(response.status, path).to.equal(400);
      const name = path.split('?')[1]!.split('=')[0]!;
      expect(await problemOf(response), path).to.have.nested.property(`errors.${name}`);
    }
    for (const path of ['/health/live', '/health/ready', '/metrics'])
      expect((await api.request(path)).status, path).to.equal(200);
  });

  it('reads webhook bodies up to 64 KiB, answers 413 past them and 415 to another media type', async () => {
    const subscription = { url: 'http://127.0.0.1:9/hook', events: ['*'] };
    const padded = (bytes: number) => JSON.stringify(subscription) + ' '.repeat(bytes);
    const created = await api.request('/api/webhook-subscriptions', json(padded(60 * 1024)));
    expect(created.status).to.equal(201);
    const { id } = (await created.json()) as { id: string };

    const tooLarge = await api.request('/api/webhook-subscriptions', json(padded(65 * 1024)));
    expect(tooLarge.status).to.equal(413);
    expect(await problemOf(tooLarge)).to.include({ code: 'PAYLOAD_TOO_LARGE' });
    const replayTooLarge = await api.request(
      `/api/webhook-subscriptions/${id}/replay`,
      json(JSON.stringify({ since: new Date(0).toISOString() }) + ' '.repeat(65 * 1024)),
    );
    expect(replayTooLarge.status).to.equal(413);

    for (const path of ['/api/webhook-subscriptions', `/api/webhook-subscriptions/${id}/replay`]) {
      const response = await api.request(path, json('{}', { headers: { 'content-type': 'text/plain' } }));
      expect(response.status, path).to.equal(415);
      expect(await problemOf(response), path).to.include({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
  });
});
