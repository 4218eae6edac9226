import { Scopes } from '@commerce/contracts';
import { type HttpMetrics, operationsRouter } from '@platform/http';
import type { WebhookSubscriptions } from '@stock/application';
import {
  locationsRouter,
  type LocationUseCases,
  productImportsRouter,
  type ProductImportUseCases,
  productsRouter,
  type ProductUseCases,
  reservationsRouter,
  type ReservationUseCases,
  stockTransfersRouter,
  type TransferUseCases,
  webhookSubscriptionsRouter,
} from '@stock/http-koa';
import { scopesByOperation, scopesByRoute } from '@platform/test-kit';
import { expect } from 'chai';
import { openApiDocument } from './support/contract';

describe("docs/openapi.yaml's security, route by route", () => {
  it('asks each operation for the scopes its route guards with, and leaves open the unguarded ones', () => {
    const routes = scopesByRoute((access) => [
      productImportsRouter({ useCases: {} as ProductImportUseCases, access, logger: console }),
      productsRouter({ useCases: {} as ProductUseCases, access, logger: console }),
      reservationsRouter({ useCases: {} as ReservationUseCases, access }),
      locationsRouter({ useCases: {} as LocationUseCases, access }),
      stockTransfersRouter({ useCases: {} as TransferUseCases, access }),
      operationsRouter({ isReady: async () => true, metrics: {} as HttpMetrics }),
      webhookSubscriptionsRouter({ subscriptions: {} as WebhookSubscriptions, access, scope: Scopes.stock.webhooks }),
    ]);
    expect(routes['GET /api/reservations/{id}']).to.deep.equal([['stock:read'], ['stock:reserve']]);
    // Keeping locations and moving stock between them is keeping the stock.
    expect(routes['POST /api/locations']).to.deep.equal([['stock:write']]);
    expect(routes['POST /api/stock-transfers/{id}/receive']).to.deep.equal([['stock:write']]);
    expect(routes['GET /api/products/{id}/stock-levels']).to.deep.equal([['stock:read']]);
    // An import writes products and their stock; an export reads them.
    expect(routes['POST /api/product-imports']).to.deep.equal([['stock:write']]);
    expect(routes['GET /api/products/export']).to.deep.equal([['stock:read']]);
    expect(scopesByOperation(openApiDocument)).to.deep.equal(routes);
  });
});
