import { startStockAppWithWebhooks } from './support/stock-app';
import { webhookSubscriptionsHttpSuite } from './suites/webhook-subscriptions-http';

// The webhook subscriptions' router, on the bare app over the in-memory store; the service runs the same suite through
// itself with WEBHOOKS=on, on memory, SQLite and PostgreSQL (its http-suites test).
webhookSubscriptionsHttpSuite('memory', startStockAppWithWebhooks);
