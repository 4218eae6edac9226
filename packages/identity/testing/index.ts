export * from './issuer';
export * from './token-checks-contract';
