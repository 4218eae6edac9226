import { startStockAppUnderTest } from './support/stock-app';
import { catalogueHttpSuite } from './suites/catalogue-http';

// SKUs and search, the products router's (products-router.ts), on the bare app over the in-memory store; the service
// runs the same suite through itself on memory, SQLite and PostgreSQL (its http-suites test).
catalogueHttpSuite('memory', startStockAppUnderTest);
