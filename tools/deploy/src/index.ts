export * from './images';
export * from './kustomize';
export * from './local-play';
export * from './manifest-checks';
export * from './podman';
export * from './services';
export * from './stage';
export * from './image-layers';
