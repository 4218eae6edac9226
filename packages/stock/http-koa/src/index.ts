export * from './create-stock-app';
export { type LocationUseCases, locationsRouter } from './locations-router';
export { type ProductUseCases, productsRouter } from './products-router';
export { type ReservationUseCases, reservationsRouter } from './reservations-router';
export { stockTransfersRouter, type TransferUseCases } from './stock-transfers-router';
export { type ProductImportUseCases, productImportsRouter } from './product-imports-router';
export * from './webhooks/index';
