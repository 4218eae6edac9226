export * from './config';
export * from './gateway-app';
export * from './gateway-docs';
export * from './gateway-errors';
export * from './gateway-service';
export * from './proxy';
export * from './rate-limit';
export * from './upstream-group';
