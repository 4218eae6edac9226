export * from './in-memory-webhook-store';
