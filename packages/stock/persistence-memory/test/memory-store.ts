import { readThrough } from '@platform/test-kit';
import { CONTRACT_TTL_MS, type OpenStockStore, traceSlot } from '@stock/domain/testing';
import { InMemoryStockStore } from '../src';

/** What the suites reach of the store, read through to the current one. */
const PORTS = [
  'unitOfWork',
  'products',
  'locations',
  'stock',
  'transfers',
  'reservations',
  'movements',
  'shipments',
  'returns',
  'outbox',
] as const;

/** The suites' store in memory: a fresh InMemoryStockStore per suite, and again on every reset. */
export const openInMemoryStockStore: OpenStockStore = async (_context, now) => {
  const { traceId, withTrace } = traceSlot();
  const fresh = () => new InMemoryStockStore({ idempotencyTtlMs: CONTRACT_TTL_MS, now, traceId });
  let store = fresh();
  return Object.assign(
    readThrough(() => store, PORTS),
    {
      withTrace,
      reset: async () => {
        store = fresh();
      },
      close: async () => {},
    },
  );
};
