import { startStockAppUnderTest } from './support/stock-app';
import { fulfilmentHttpSuite } from './suites/fulfilment-http';

// The shipments and returns routers, on the bare app over the in-memory store; the service runs the same suite
// through itself on memory, SQLite and PostgreSQL (its http-suites test).
fulfilmentHttpSuite('memory', startStockAppUnderTest);
