import { fulfilmentRepositoryContract } from './fulfilment-repository-contract';
import { idempotencyContract } from './idempotency-contract';
import { locationRepositoryContract } from './location-repository-contract';
import { productSearchContract } from './product-search-contract';
import { productStockRepositoryContract } from './product-stock-repository-contract';
import { productRepositoryContract } from './repository-contract';
import { reservationRepositoryContract } from './reservation-repository-contract';
import type { OpenStockStore } from './stock-store';
import { transferRepositoryContract } from './transfer-repository-contract';
import { unitOfWorkContract } from './unit-of-work-contract';

/** Every contract a stock storage adapter keeps, each suite titled with the adapter (`store`) and what it drives. */
export function stockStoreContracts(store: string, open: OpenStockStore): void {
  describe(`${store}: products`, () => productRepositoryContract(open));
  describe(`${store}: SKUs and search`, () => productSearchContract(open));
  describe(`${store}: locations`, () => locationRepositoryContract(open));
  describe(`${store}: stock by location`, () => productStockRepositoryContract(open));
  describe(`${store}: transfers`, () => transferRepositoryContract(open));
  describe(`${store}: reservations`, () => reservationRepositoryContract(open));
  describe(`${store}: shipments and returns`, () => fulfilmentRepositoryContract(open));
  describe(`${store}: unit of work`, () => unitOfWorkContract(open));
  describe(`${store}: idempotency records`, () => idempotencyContract(open));
}
