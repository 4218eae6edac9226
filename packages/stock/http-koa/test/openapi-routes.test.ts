import { scopesByRoute } from '@platform/test-kit';
import { expect } from 'chai';
import { openApiDocument } from './support/contract';
import { everyStockRouter } from './support/routers';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
/** "GET /api/products/{id}" for every operation the routers serve (HEAD comes with GET). */
const servedOperations = () => Object.keys(scopesByRoute(everyStockRouter));

/** The tag of the operations under each path prefix; any other path is Operations. */
const GROUPS = [
  ['/api/products', 'Products'],
  ['/api/product-imports', 'Products'],
  ['/api/reservations', 'Reservations'],
  ['/api/locations', 'Locations'],
  ['/api/stock-transfers', 'Stock transfers'],
  ['/api/shipments', 'Fulfilment'],
  ['/api/returns', 'Fulfilment'],
  ['/api/webhook-subscriptions', 'Webhooks'],
] as const;

function describedOperations(): string[] {
  return Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => HTTP_METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe('docs/openapi.yaml and the routers', () => {
  it('describes every route the Koa router serves, and nothing it does not', () => {
    expect(servedOperations()).to.have.length.greaterThan(0);
    expect(servedOperations()).to.have.members(describedOperations());
  });

  it('groups the operations under Products, Reservations, Locations, Stock transfers, Fulfilment, Webhooks and Operations, each with an operationId', () => {
    expect(openApiDocument.tags.map((tag) => tag.name)).to.deep.equal([
      'Products',
      'Reservations',
      'Locations',
      'Stock transfers',
      'Fulfilment',
      'Webhooks',
      'Operations',
    ]);
    for (const [path, item] of Object.entries(openApiDocument.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue;
        expect(operation).to.have.property('operationId');
        const group = GROUPS.find(([prefix]) => path.startsWith(prefix))?.[1] ?? 'Operations';
        expect((operation as { tags?: string[] }).tags).to.deep.equal([group]);
      }
    }
  });
});
