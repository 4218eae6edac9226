export * from './order-events-handler';
