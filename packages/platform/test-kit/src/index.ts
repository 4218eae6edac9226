export * from './postgres-scratch';
