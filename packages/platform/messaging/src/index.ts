export * from './broker';
export * from './event-consumer';
export * from './event-publisher';
export * from './messaging-metrics';
export * from './outbox-relay';
export * from './service-messaging';
export * from './topology';
export * from './relay-wake';
