import type { OpenSalesStore } from '@sales/domain/testing';
import { InMemorySalesStore } from '../src';

/** The suites' store in memory: a fresh InMemorySalesStore per suite, and again on every reset. */
export const openInMemorySalesStore: OpenSalesStore = async () => {
  let store = new InMemorySalesStore({ idempotencyTtlMs: 60_000 });
  return {
    get unitOfWork() {
      return store.unitOfWork;
    },
    get orders() {
      return store.orders;
    },
    get outbox() {
      return store.outbox;
    },
    reset: async () => {
      store = new InMemorySalesStore({ idempotencyTtlMs: 60_000 });
    },
    close: async () => {},
  };
};
