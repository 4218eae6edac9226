export * from './mikro-orm-webhook-store';
export * from './webhook-migrations';
export * from './webhook-schemas';
