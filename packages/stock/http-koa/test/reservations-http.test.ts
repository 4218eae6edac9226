import { startStockAppUnderTest } from './support/stock-app';
import { reservationsHttpSuite } from './suites/reservations-http';

// The reservations router and the ledger (reservations-router.ts, products-router.ts), on the bare app over the
// in-memory store; the service runs the same suite through itself on memory, SQLite and PostgreSQL (its http-suites
// test).
reservationsHttpSuite('memory', startStockAppUnderTest);
