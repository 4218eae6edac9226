export * from './event-keys';
export * from './retry-schedule';
export * from './webhook-store';
