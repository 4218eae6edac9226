import type { ResultFormat } from '@platform/kernel';
import type { Shipment, StockReturn } from '@stock/domain';

/** A shipment or a return as an idempotency record keeps it: JSON, its time as ISO text. */
function recordOf<T extends { readonly createdAt: Date }>(): ResultFormat<T> {
  return {
    serialise: (value) => JSON.stringify({ ...value, createdAt: value.createdAt.toISOString() }),
    deserialise: (text) => {
      const { createdAt, ...rest } = JSON.parse(text) as Omit<T, 'createdAt'> & { createdAt: string };
      return { ...rest, createdAt: new Date(createdAt) } as unknown as T;
    },
  };
}

export const shipmentRecord = recordOf<Shipment>();
export const returnRecord = recordOf<StockReturn>();
