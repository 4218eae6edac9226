export * from './problem';
export * from './problem-middleware';
