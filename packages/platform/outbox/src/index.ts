export * from './outbox';
export * from './outbox-store';
