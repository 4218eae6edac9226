import type { Clock } from '@platform/kernel';
import { type Order, OrderNotFoundError, type Outcome, type SalesTransaction, type Viewer } from '@sales/domain';
import { visibleTo } from './get-order';

/** How many times a change looks again when the order moved on between its read and its write. */
const ATTEMPTS = 5;

/**
 * Reads an order with its row locked, lets `decide` move it on, and stores
 * the next state only if nobody changed it in between (by version, a second
 * guard where a store cannot lock): on a race it reads again and decides
 * again, so guards always see the current state. `then` runs in the same
 * transaction when the order changed (to write its event).
 */
export async function changeOrder(
  tx: SalesTransaction,
  id: string,
  viewer: Viewer,
  clock: Clock,
  decide: (order: Order, at: Date) => Outcome,
  then: (order: Order, at: Date) => Promise<void> = async () => {},
): Promise<Order> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await tx.orders.findById(id, { lock: true });
    if (!visibleTo(current, viewer)) throw new OrderNotFoundError(id);
    const at = clock();
    const outcome = decide(current, at);
    if (!outcome.changed) return outcome.order;
    if (await tx.orders.save(outcome.order, current.version)) {
      await then(outcome.order, at);
      return outcome.order;
    }
  }
  throw new Error(`Order ${id} kept changing under ${ATTEMPTS} attempts to change it.`);
}
