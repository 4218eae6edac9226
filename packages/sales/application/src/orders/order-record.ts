import type { ResultFormat } from '@platform/kernel';
import { type Order, orderFromSnapshot, type OrderSnapshot, orderSnapshot } from '@sales/domain';

/** An order as an idempotency record keeps it, so a repeat answers the order exactly as the first call did. */
export const orderRecord: ResultFormat<Order> = {
  serialise: (order) => JSON.stringify(orderSnapshot(order)),
  deserialise: (text) => orderFromSnapshot(JSON.parse(text) as OrderSnapshot),
};
