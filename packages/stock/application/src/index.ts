export * from './adjust-stock';
export * from './create-product';
export * from './delete-product';
export * from './get-product';
export * from './list-products';
export * from './update-product';
export * from './stream-products';
