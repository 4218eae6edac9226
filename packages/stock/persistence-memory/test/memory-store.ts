import { CONTRACT_TTL_MS, type OpenStockStore, traceSlot } from '@stock/domain/testing';
import { InMemoryStockStore } from '../src';

/** The suites' store in memory: a fresh InMemoryStockStore per suite, and again on every reset. */
export const openInMemoryStockStore: OpenStockStore = async (_context, now) => {
  const { traceId, withTrace } = traceSlot();
  const fresh = () => new InMemoryStockStore({ idempotencyTtlMs: CONTRACT_TTL_MS, now, traceId });
  let store = fresh();
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
    get stock() {
      return store.stock;
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
    withTrace,
    reset: async () => {
      store = fresh();
    },
    close: async () => {},
  };
};
