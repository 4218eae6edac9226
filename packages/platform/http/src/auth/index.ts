export * from './access-control';
export * from './authenticate';
export * from './bearer-challenge';
export * from './invalid-token-error';
export * from './principal';
export * from './require-scope';
export * from './token-verifier';
