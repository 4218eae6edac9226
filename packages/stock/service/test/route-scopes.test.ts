import { type HttpMetrics, operationsRouter } from '@platform/koa';
import { scopesByOperation, scopesByRoute } from '@platform/test-kit';
import { type ProductUseCases, productsRouter, type ReservationUseCases, reservationsRouter } from '@stock/http-koa';
import { expect } from 'chai';
import { openApiDocument } from './openapi-contract';

describe("docs/openapi.yaml's security, route by route", () => {
  it('asks each operation for the scopes its route guards with, and leaves open the unguarded ones', () => {
    const routes = scopesByRoute((access) => [
      productsRouter({ useCases: {} as ProductUseCases, access, logger: console }),
      reservationsRouter({ useCases: {} as ReservationUseCases, access }),
      operationsRouter({ isReady: async () => true, metrics: {} as HttpMetrics }),
    ]);
    expect(routes['GET /api/reservations/{id}']).to.deep.equal([['stock:read'], ['stock:reserve']]);
    expect(scopesByOperation(openApiDocument)).to.deep.equal(routes);
  });
});
