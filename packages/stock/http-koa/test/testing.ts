// The HTTP suites and their helpers, for the service to run over its own storage (SQLite, PostgreSQL).
export * from './support/api-under-test';
export * from './support/contract';
export * from './suites/any-request-http';
export * from './suites/catalogue-http';
export * from './suites/fulfilment-http';
export * from './suites/locations-http';
export * from './suites/product-imports-http';
export * from './suites/products-http';
export * from './suites/reservations-http';
export * from './suites/stock-integrity-http';
export * from './suites/webhook-subscriptions-http';
