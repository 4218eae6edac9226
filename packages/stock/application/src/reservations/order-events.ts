import type { EventData, EventEnvelope } from '@commerce/contracts';
import type { Clock } from '@platform/kernel';
import type { AllocationStrategy, ShippedUnits, StockTransaction } from '@stock/domain';
import type { StockChangeSettings } from '../stock/stock-changes';

/** An event sales publishes about an order, as stock consumes it. */
export type OrderEvent<T extends 'sales.order.placed' | 'sales.order.cancelled' | 'sales.order.paid'> = EventEnvelope<
  T,
  EventData<T>
>;

/**
 * What handling an order event did, for the log line and the metrics; `duplicate` is a message the inbox already had.
 */
export type OrderEventOutcome =
  'held' | 'rejected' | 'tombstoned' | 'released' | 'committed' | 'commit-failed' | 'unchanged' | 'duplicate';

/** What the order use cases need besides the unit of work. */
export interface OrderEventSettings extends Partial<StockChangeSettings> {
  readonly clock: Clock;
  readonly newId: () => string;
  /** How long an order's hold lasts. */
  readonly defaultTtlSeconds: number;
  /** The consumer the inbox records messages for: the service's queue. */
  readonly consumer: string;
  /** RESERVATION_ALLOCATION: how an order's lines are spread over locations (default priority). */
  readonly allocation?: AllocationStrategy;
  /**
   * The units an order's shipments took, per product and location, read in the transaction that releases its
   * committed units (only the rest is released). Absent: no order ships anything.
   */
  readonly shippedOf?: (tx: StockTransaction, orderId: string) => Promise<readonly ShippedUnits[]>;
}
