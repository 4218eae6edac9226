import { EntitySchema } from '@mikro-orm/core';
import { type Dialect, idempotencyKeySchema, outboxMessageSchema } from '@platform/persistence';
import type { OrderStatus } from '@sales/domain';

/** An order as a row; the repository turns it into the domain's Order. */
export interface OrderRow {
  id: string;
  buyer: string;
  status: string;
  /**
   * JSON: [{ productId, name, unitPriceCents, quantity, allocations: [{ locationId, quantity }], shippedQuantity,
   * returnedQuantity }], as quoted when the order was placed, where stock holds each line once it confirmed, and how
   * many of its units shipped and came back. Lines written before allocations existed have none: they read as held
   * nowhere yet, so no migration rewrites them; the shipped and returned counts were added to every line by a
   * migration (20261129-order-fulfilment).
   */
  lines: string;
  totalCents: number;
  reservationId: string | null;
  reservationExpiresAt: Date | number | null;
  /** JSON: the shortages of a rejected order. */
  shortages: string | null;
  failureReason: string | null;
  /** A paid order was cancelled: its payment is owed back. */
  paymentToRelease: boolean;
  /** JSON: the order's payment (amounts in cents), once sales asked the provider for one. */
  payment: string | null;
  /** The payment's status, apart from its JSON so that the metrics count by it. */
  paymentStatus: string | null;
  /** JSON: the order's refunds (amounts in cents), oldest first; null in rows written before refunds (none). */
  refunds: string | null;
  /**
   * When the order owes the payment provider a call (Order.paymentWork): at once after a change, later once a worker
   * leased it or the provider could not be reached; null when it owes nothing.
   */
  paymentDueAt: Date | number | null;
  createdAt: Date | number;
  updatedAt: Date | number;
  version: number;
}

/** Every OrderStatus (the compiler checks that none is missing); `completed` is retired, migrated to `shipped`. */
const STATUSES = Object.keys({
  pending: true,
  reserved: true,
  paid: true,
  partially_shipped: true,
  shipped: true,
  returned: true,
  rejected: true,
  cancelled: true,
  expired: true,
  unfulfilled: true,
} satisfies Record<OrderStatus, true>);

/** Times: timestamptz on PostgreSQL, epoch milliseconds on SQLite (which has no time type). */
function time(dialect: Dialect, fieldName: string, nullable = false) {
  return {
    ...(dialect === 'postgresql' ? { type: 'datetime', columnType: 'timestamptz' } : { type: 'integer' }),
    fieldName,
    nullable,
  };
}

/**
 * The orders table's mapping ("sales_order": "order" is a keyword). Money is
 * integer cents on both databases: totals are sums of exact line totals, never
 * a float. The migrations create the table; the schema-drift test holds the two together.
 */
export function orderSchema(dialect: Dialect): EntitySchema<OrderRow> {
  return new EntitySchema<OrderRow>({
    name: 'SalesOrder',
    tableName: 'sales_order',
    indexes: [
      { name: 'sales_order_buyer_id_index', properties: ['buyer', 'id'] },
      { name: 'sales_order_payment_due_at_index', properties: ['paymentDueAt'] },
      { name: 'sales_order_status_id_index', properties: ['status', 'id'] },
    ],
    properties: {
      id: { type: 'string', length: 36, primary: true },
      buyer: { type: 'string', length: 255 },
      // MikroORM 7 reads the status check back as this enum, on both databases.
      status: { enum: true, items: STATUSES, type: 'text' },
      lines: { type: 'text' },
      totalCents: { type: dialect === 'postgresql' ? 'bigint' : 'integer', fieldName: 'total_cents' },
      reservationId: { type: 'string', length: 36, fieldName: 'reservation_id', nullable: true },
      reservationExpiresAt: time(dialect, 'reservation_expires_at', true),
      shortages: { type: 'text', nullable: true },
      failureReason: { type: 'string', length: 500, fieldName: 'failure_reason', nullable: true },
      paymentToRelease: { type: 'boolean', fieldName: 'payment_to_release', default: false },
      payment: { type: 'text', nullable: true },
      paymentStatus: { type: 'string', length: 32, fieldName: 'payment_status', nullable: true },
      refunds: { type: 'text', nullable: true },
      paymentDueAt: time(dialect, 'payment_due_at', true),
      createdAt: time(dialect, 'created_at'),
      updatedAt: time(dialect, 'updated_at'),
      version: { type: 'integer', version: true, default: 1 },
    },
  });
}

/** Every table the sales migrations create. */
export function salesEntities(dialect: Dialect): EntitySchema[] {
  return [orderSchema(dialect), idempotencyKeySchema(dialect), outboxMessageSchema(dialect)] as EntitySchema[];
}
