import { CONTRACT_TTL_MS, type OpenStockStore } from '@stock/test-kit';
import { InMemoryStockStore } from '../src';

/** The suites' store in memory: a fresh InMemoryStockStore per suite, and again on every reset. */
export const openInMemoryStockStore: OpenStockStore = async (_context, now) => {
  let store = new InMemoryStockStore({ idempotencyTtlMs: CONTRACT_TTL_MS, now });
  return {
    get unitOfWork() {
      return store.unitOfWork;
    },
    get products() {
      return store.products;
    },
    get locations() {
      return store.locations;
    },
    get levels() {
      return store.levels;
    },
    get transfers() {
      return store.transfers;
    },
    get reservations() {
      return store.reservations;
    },
    get movements() {
      return store.movements;
    },
    get outbox() {
      return store.outbox;
    },
    reset: async () => {
      store = new InMemoryStockStore({ idempotencyTtlMs: CONTRACT_TTL_MS, now });
    },
    close: async () => {},
  };
};
