export * from './in-memory-location-repository';
export * from './in-memory-product-repository';
export * from './in-memory-product-stock-repository';
export * from './in-memory-reservation-repository';
export * from './in-memory-stock-movement-repository';
export * from './in-memory-stock-store';
export * from './in-memory-transfer-repository';
export * from './webhooks/in-memory-webhook-store';
