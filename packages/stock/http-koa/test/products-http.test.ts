import { startStockAppUnderTest } from './support/stock-app';
import { productsHttpSuite } from './suites/products-http';

// The products router (products-router.ts), on the bare app over the in-memory store; the service runs the same suite
// through itself on memory, SQLite and PostgreSQL (its http-suites test).
productsHttpSuite('memory', startStockAppUnderTest);
