import { startStockAppUnderTest } from './support/stock-app';
import { anyRequestHttpSuite } from './suites/any-request-http';

// Any request to the app, generated, on the bare app over the in-memory store; the service runs the same suite through
// itself on memory, SQLite and PostgreSQL (its http-suites test).
anyRequestHttpSuite('memory', startStockAppUnderTest);
