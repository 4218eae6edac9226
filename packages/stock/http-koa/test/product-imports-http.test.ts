import { startStockAppUnderTest } from './support/stock-app';
import { productImportsHttpSuite } from './suites/product-imports-http';

// The imports and exports router (product-imports-router.ts), on the bare app over the in-memory store; the service
// runs the same suite through itself on memory, SQLite and PostgreSQL (its http-suites test).
productImportsHttpSuite('memory', startStockAppUnderTest);
