import { expect } from 'chai';
import { Money } from '@commerce/shared-kernel';
import { type SalesAppUnderTest, startSalesApp } from './sales-app';

/**
 * What a validating proxy found stock answering while its description said otherwise, asked of sales, which shares
 * that code: each answer here goes through docs/sales.openapi.yaml's check (salesClient's request).
 */
describe('the sales app answers what docs/sales.openapi.yaml says', () => {
  let sales: SalesAppUnderTest;
  before(async () => {
    sales = await startSalesApp({ products: [{ id: 1, name: 'Lamp', price: Money.fromDecimalString('10') }] });
  });
  after(async () => sales?.close());

  it('refuses a query parameter on health and metrics, as on every operation', async () => {
    for (const path of ['/health/live?verbose=1', '/health/ready?verbose=1', '/metrics?format=json']) {
      const response = await sales.request(path);
      expect(response.status, path).to.equal(400);
      expect(response.headers.get('content-type'), path).to.equal('application/problem+json');
    }
  });

  it('refuses an empty Idempotency-Key instead of taking it for none', async () => {
    const { status, body } = await sales.json(
      'POST',
      '/api/orders',
      { lines: [{ productId: 1, quantity: 1 }] },
      { 'idempotency-key': '' },
    );
    expect(status).to.equal(400);
    expect(body).to.have.nested.property('errors.Idempotency-Key');
  });

  it('answers HEAD as its GET, OPTIONS and 405 with the methods the description lists, 404 elsewhere', async () => {
    expect((await sales.request('/api/orders', { method: 'HEAD' })).status).to.equal(200);
    const options = await sales.request('/api/orders', { method: 'OPTIONS' });
    expect(options.status).to.equal(200);
    const refused = await sales.request('/api/orders', { method: 'DELETE' });
    expect([refused.status, refused.headers.get('allow')]).to.deep.equal([405, options.headers.get('allow')]);
    expect((await sales.request('/api/nowhere')).status).to.equal(404);
  });
});
