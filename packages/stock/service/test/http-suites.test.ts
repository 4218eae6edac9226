import {
  anyRequestHttpSuite,
  catalogueHttpSuite,
  fulfilmentHttpSuite,
  locationsHttpSuite,
  productImportsHttpSuite,
  productsHttpSuite,
  reservationsHttpSuite,
  stockIntegrityHttpSuite,
  webhookSubscriptionsHttpSuite,
} from '@stock/http-koa/testing';
import { BACKENDS } from '@platform/test-kit';
import { startServiceUnderTest, WEBHOOKS_ON } from './support';

// @stock/http-koa's HTTP suites, which it runs over the bare app on the in-memory store: here through the whole
// service, on memory, SQLite and PostgreSQL.
for (const backend of BACKENDS) {
  const start = (context: Mocha.Context) => startServiceUnderTest(backend, context);
  productsHttpSuite(backend, start);
  catalogueHttpSuite(backend, start);
  reservationsHttpSuite(backend, start);
  locationsHttpSuite(backend, start);
  productImportsHttpSuite(backend, start);
  stockIntegrityHttpSuite(backend, start);
  fulfilmentHttpSuite(backend, start);
  anyRequestHttpSuite(backend, start);
  webhookSubscriptionsHttpSuite(backend, (context) => startServiceUnderTest(backend, context, {}, WEBHOOKS_ON));
}
