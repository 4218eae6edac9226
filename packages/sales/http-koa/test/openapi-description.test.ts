import { Validator } from '@seriousme/openapi-schema-validator';
import { type HttpMetrics, operationsRouter } from '@platform/http';
import { type RecordingAccess, scopesByOperation, scopesByRoute } from '@platform/test-kit';
import { expect } from 'chai';
import { type OrderUseCases, ordersRouter, paymentEventsRouter, type PaymentEventsRouterOptions } from '../src';
import { SALES_OPENAPI_FILE, salesOpenApi } from './sales-contract';

/** The provider's webhook: no token, its signature is the proof. */
const WEBHOOK = '/api/payment-events';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
/** The routers createSalesApp mounts, with the access control they are given. */
const salesRouters = (access: RecordingAccess) => [
  ordersRouter({ useCases: {} as OrderUseCases, access }),
  paymentEventsRouter({} as PaymentEventsRouterOptions),
  operationsRouter({ isReady: async () => true, metrics: {} as HttpMetrics }),
];

describe('docs/sales.openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 description', async () => {
    const validator = new Validator();
    const result = await validator.validate(SALES_OPENAPI_FILE);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([]);
    expect(validator.version).to.equal('3.1');
  });

  it('describes every route the Koa router serves, and nothing it does not', () => {
    const served = Object.keys(scopesByRoute(salesRouters));
    expect(served).to.have.members(Object.keys(scopesByOperation(salesOpenApi)));
  });

  it("groups the operations under Orders, Payments and Operations; only the operations and the provider's webhook are open without a token", () => {
    expect(salesOpenApi.tags.map((tag) => tag.name)).to.deep.equal(['Orders', 'Payments', 'Operations']);
    const payments = ['/api/orders/{id}/refunds', WEBHOOK];
    for (const [path, item] of Object.entries(salesOpenApi.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue;
        const api = path.startsWith('/api/') && path !== WEBHOOK;
        const tag = payments.includes(path) ? 'Payments' : path.startsWith('/api/') ? 'Orders' : 'Operations';
        expect(operation.tags, path).to.deep.equal([tag]);
        if (api)
          expect(operation.security, path).to.satisfy(
            (security: unknown) =>
              Array.isArray(security) &&
              security.length > 0 &&
              security.every((requirement) => Object.keys(requirement as object).join() === 'bearerAuth'),
          );
        else expect(operation.security, path).to.deep.equal([]);
        if (api) expect(Object.keys(operation.responses ?? {}), path).to.include.members(['401', '403', '503']);
      }
    }
  });
});

describe("docs/sales.openapi.yaml's security, route by route", () => {
  it('asks each operation for the scopes its route guards with, and leaves open the unguarded ones', () => {
    const routes = scopesByRoute(salesRouters);
    expect(routes['POST /api/orders/{id}/refunds']).to.deep.equal([['orders:refund']]);
    expect(routes).not.to.have.property('POST /api/orders/{id}/payment');
    expect(routes['POST /api/payment-events']).to.deep.equal([]);
    expect(scopesByOperation(salesOpenApi)).to.deep.equal(routes);
  });
});
