export * from './config';
export * from './container';
export * from './sales-service';
export * from './tokens';
