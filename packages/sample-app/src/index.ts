export * from './create-sample-app';
export * from './error-middleware';
export * from './greet-name';
export * from './parse-host';
export * from './parse-port';
export * from './problem-error';
export * from './sample-router';
export * from './weather-forecast';
