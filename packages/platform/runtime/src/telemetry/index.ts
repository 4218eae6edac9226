export * from './start-tracing';
export * from './tracing';
export * from './http-client-span';
