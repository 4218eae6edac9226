import { type Dialect, idempotencyKeyMigration, outboxMigrations } from '@platform/persistence';
import { createOrders } from './create-orders';
import { orderFulfilment } from './order-fulfilment';
import { orderPayments } from './order-payments';
import { PendingOrdersIndex } from './pending-orders-index';

/** The sales service's migrations, in order, for one dialect. */
export function salesMigrations(dialect: Dialect) {
  return [
    { name: '20261124-create-orders', class: createOrders(dialect) },
    { name: '20261124-idempotency-keys', class: idempotencyKeyMigration(dialect) },
    ...outboxMigrations(dialect),
    { name: '20261129-order-fulfilment', class: orderFulfilment(dialect) },
    { name: '20261130-order-payments', class: orderPayments(dialect) },
    { name: '20261201-pending-orders-index', class: PendingOrdersIndex },
  ];
}
