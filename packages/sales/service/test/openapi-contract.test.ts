import { Validator } from '@seriousme/openapi-schema-validator';
import { type AccessControl, type HttpMetrics, operationsRouter } from '@platform/http';
import { type OrderUseCases, ordersRouter } from '@sales/http-koa';
import { expect } from 'chai';
import { DEFAULT_CONFIG, loadConfig } from '../src';
import { SALES_OPENAPI_FILE, salesOpenApi } from './support';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
const open: AccessControl = {
  enabled: false,
  authenticate: (_ctx, next) => next(),
  require: () => (_ctx, next) => next(),
};

function servedOperations(): string[] {
  const routers = [
    ordersRouter({ useCases: {} as OrderUseCases, access: open }),
    operationsRouter({ isReady: async () => true, metrics: {} as HttpMetrics }),
  ];
  return routers
    .flatMap((router) => router.stack)
    .flatMap((layer) =>
      layer.methods
        .filter((method) => method !== 'HEAD')
        .map(
          (method) =>
            `${method} ${String(layer.path)
              .replace(/:(\w+)/g, '{$1}')
              .replace(/\/$/, '')}`,
        ),
    );
}

describe('docs/sales.openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 description', async () => {
    const validator = new Validator();
    const result = await validator.validate(SALES_OPENAPI_FILE);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([]);
    expect(validator.version).to.equal('3.1');
  });

  it('describes every route the Koa router serves, and nothing it does not', () => {
    const described = Object.entries(salesOpenApi.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => HTTP_METHODS.includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(servedOperations()).to.have.members(described);
  });

  it('groups the operations under Orders and Operations; only the operations are open without a token', () => {
    expect(salesOpenApi.tags.map((tag) => tag.name)).to.deep.equal(['Orders', 'Operations']);
    for (const [path, item] of Object.entries(salesOpenApi.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue;
        const api = path.startsWith('/api/');
        expect(operation.tags, path).to.deep.equal([api ? 'Orders' : 'Operations']);
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

describe('sales settings', () => {
  it('defaults to port 8082, its own SQLite file, stock on 8080 and no token checks, so on loopback only', () => {
    expect(DEFAULT_CONFIG).to.include({
      port: 8082,
      host: '127.0.0.1',
      databaseUrl: 'sqlite:./data/sales.db',
      stockUrl: 'http://127.0.0.1:8080',
      authIssuer: '',
      authAudience: 'urn:commerce:sales',
    });
  });

  it('listens on loopback only while tokens are off, on every interface once they are on, and where HOST says in either case', () => {
    const issuer = { AUTH_ISSUER: 'https://id.example.com' };
    expect(loadConfig({}, '/nonexistent').host).to.equal('127.0.0.1');
    expect(loadConfig({ HOST: '' }, '/nonexistent').host).to.equal('127.0.0.1');
    expect(loadConfig(issuer, '/nonexistent').host).to.equal('');
    expect(loadConfig({ HOST: '0.0.0.0' }, '/nonexistent').host).to.equal('0.0.0.0');
    expect(loadConfig({ ...issuer, HOST: '10.0.0.5' }, '/nonexistent').host).to.equal('10.0.0.5');
  });

  it('refuses a client id without its secret, a client without an issuer, and a STOCK_URL that is not a URL', () => {
    expect(() => loadConfig({ STOCK_CLIENT_ID: 'sales' }, '/nonexistent')).to.throw(
      /STOCK_CLIENT_ID and STOCK_CLIENT_SECRET go together/,
    );
    expect(() => loadConfig({ STOCK_CLIENT_ID: 'sales', STOCK_CLIENT_SECRET: 's' }, '/nonexistent')).to.throw(
      /STOCK_CLIENT_ID needs AUTH_ISSUER/,
    );
    expect(() => loadConfig({ STOCK_URL: 'localhost:8080' }, '/nonexistent')).to.throw(
      /STOCK_URL must be an absolute http or https URL/,
    );
    expect(() => loadConfig({ AUTH_ISSUER: 'not a url' }, '/nonexistent')).to.throw(/AUTH_ISSUER/);
  });
});
