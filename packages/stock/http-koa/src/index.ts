export * from './create-stock-app';
export { type LocationUseCases, locationsRouter } from './locations/locations-router';
export { type ProductUseCases, productsRouter } from './products/products-router';
export { type ReservationUseCases, reservationsRouter } from './reservations/reservations-router';
export { stockTransfersRouter, type TransferUseCases } from './transfers/stock-transfers-router';
export { type ShipmentUseCases, shipmentsRouter } from './fulfilment/shipments-router';
export { type ReturnUseCases, returnsRouter } from './fulfilment/returns-router';
export { type ProductImportUseCases, productImportsRouter } from './imports/product-imports-router';
export * from './webhooks/index';
