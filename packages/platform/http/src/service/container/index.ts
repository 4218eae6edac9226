export * from './service-container';
export * from './service-settings';
export * from './service-tokens';
export * from './single';
export * from './start-service-container';
export * from './storage';
