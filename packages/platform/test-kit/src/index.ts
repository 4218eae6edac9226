export * from './postgres-scratch';
export * from './freezable-proxy';
export * from './outbox-store-contract';
export * from './raw-http';
export * from './openapi-contract';
export * from './service-support';
export * from './rabbitmq-scratch';
export * from './service-process';
