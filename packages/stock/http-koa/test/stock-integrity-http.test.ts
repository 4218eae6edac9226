import { startStockAppUnderTest } from './support/stock-app';
import { stockIntegrityHttpSuite } from './suites/stock-integrity-http';

// Adjustments, ETags and Idempotency-Keys across the routers, and the platform's operations routes, on the bare app
// over the in-memory store; the service runs the same suite through itself on memory, SQLite and PostgreSQL (its
// http-suites test).
stockIntegrityHttpSuite('memory', startStockAppUnderTest);
