export * from './outbox-store';
