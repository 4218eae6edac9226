import { startStockAppUnderTest } from './support/stock-app';
import { locationsHttpSuite } from './suites/locations-http';

// The locations and transfers routers (locations-router.ts, stock-transfers-router.ts), on the bare app over the
// in-memory store; the service runs the same suite through itself on memory, SQLite and PostgreSQL (its http-suites
// test).
locationsHttpSuite('memory', startStockAppUnderTest);
