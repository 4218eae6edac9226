export * from './start-service';
export * from './container/index';
