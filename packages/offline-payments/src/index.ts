export * from './config';
export * from './offline-provider';
export { EVENT_TYPES, type EventType } from './ledger/payment-ledger';
export { stripeSignature } from './webhooks/signature';
export { backoffMs, type Delivery, WebhookDispatcher } from './webhooks/webhook-dispatcher';
