export * from './config';
export * from './container';
export * from './logger';
export * from './persistence';
export * from './stock-service';
export * from './tokens';
