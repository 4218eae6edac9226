export * from './start-tracing';
export * from './tracing';
