export * from './clients-file';
export * from './config';
export * from './create-provider';
export * from './identity-app';
export * from './identity-service';
export * from './keys-file';
export * from './resources';
export * from './rotate-keys';
