export * from './postgres-scratch';
export * from './freezable-proxy';
