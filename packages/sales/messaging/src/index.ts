export * from './stock-events-handler';
