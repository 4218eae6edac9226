export * from './swagger-docs';
