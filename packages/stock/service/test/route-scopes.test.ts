import { Scopes } from '@commerce/contracts';
import { type HttpMetrics, operationsRouter } from '@platform/koa';
import type { WebhookSubscriptions } from '@platform/webhooks';
import { webhookSubscriptionsRouter } from '@platform/webhooks/koa';
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
      webhookSubscriptionsRouter({ subscriptions: {} as WebhookSubscriptions, access, scope: Scopes.stock.webhooks }),
    ]);
    expect(routes['GET /api/reservations/{id}']).to.deep.equal([['stock:read'], ['stock:reserve']]);
    expect(scopesByOperation(openApiDocument)).to.deep.equal(routes);
  });
});
