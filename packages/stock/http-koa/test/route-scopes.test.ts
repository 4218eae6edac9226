import { scopesByOperation, scopesByRoute } from '@platform/test-kit';
import { expect } from 'chai';
import { openApiDocument } from './support/contract';
import { everyStockRouter } from './support/routers';

describe("docs/openapi.yaml's security, route by route", () => {
  it('asks each operation for the scopes its route guards with, and leaves open the unguarded ones', () => {
    const routes = scopesByRoute(everyStockRouter);
    expect(routes['GET /api/reservations/{id}']).to.deep.equal([['stock:read'], ['stock:reserve']]);
    // Keeping locations and moving stock between them is keeping the stock.
    expect(routes['POST /api/locations']).to.deep.equal([['stock:write']]);
    expect(routes['POST /api/stock-transfers/{id}/receive']).to.deep.equal([['stock:write']]);
    expect(routes['GET /api/products/{id}/stock-levels']).to.deep.equal([['stock:read']]);
    // An import writes products and their stock; an export reads them.
    expect(routes['POST /api/product-imports']).to.deep.equal([['stock:write']]);
    expect(routes['GET /api/products/export']).to.deep.equal([['stock:read']]);
    // Shipping and taking returns is the warehouse's work, apart from keeping the stock; reading them is reading it.
    expect(routes['POST /api/shipments']).to.deep.equal([['stock:fulfil']]);
    expect(routes['GET /api/returns/{id}']).to.deep.equal([['stock:fulfil'], ['stock:read']]);
    expect(scopesByOperation(openApiDocument)).to.deep.equal(routes);
  });
});
