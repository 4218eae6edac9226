export * from './create-stock-app';
export { type ProductUseCases, productsRouter } from './products-router';
export { type ReservationUseCases, reservationsRouter } from './reservations-router';
