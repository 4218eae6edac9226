export * from './logger';
export * from './main';
export * from './settings';
export * from './periodic';
export * from './json-lines';
export * from './pretty-lines';
