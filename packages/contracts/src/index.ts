export * from './codecs';
export * from './events';
export * from './new-event';
export * from './decode-event';
export * from './security';
