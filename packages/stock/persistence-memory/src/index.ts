export * from './in-memory-stock-store';
export * from './stock/in-memory-product-stock-repository';
export * from './products/in-memory-product-repository';
export * from './reservations/in-memory-reservation-repository';
export * from './locations/in-memory-location-repository';
export * from './transfers/in-memory-transfer-repository';
export * from './ledger/in-memory-stock-movement-repository';
export * from './webhooks/in-memory-webhook-store';
