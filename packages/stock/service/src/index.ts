export * from './config';
export * from './container';
export * from './stock-service';
export * from './tokens';
export * from './use-cases';
export * from './webhooks';
