import { type HttpMetrics, operationsRouter } from '@platform/http';
import { scopesByOperation, scopesByRoute } from '@platform/test-kit';
import { type OrderUseCases, ordersRouter } from '../src';
import { expect } from 'chai';
import { salesOpenApi } from './sales-contract';

describe("docs/sales.openapi.yaml's security, route by route", () => {
  it('asks each operation for the scopes its route guards with, and leaves open the unguarded ones', () => {
    const routes = scopesByRoute((access) => [
      ordersRouter({ useCases: {} as OrderUseCases, access }),
      operationsRouter({ isReady: async () => true, metrics: {} as HttpMetrics }),
    ]);
    expect(routes['POST /api/orders/{id}/payment']).to.deep.equal([['orders:pay']]);
    expect(scopesByOperation(salesOpenApi)).to.deep.equal(routes);
  });
});
