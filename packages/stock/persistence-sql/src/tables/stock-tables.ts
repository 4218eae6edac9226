import type { EntitySchema } from '@mikro-orm/core';
import { type Dialect, idempotencyKeySchema, outboxMessageSchema } from '@platform/persistence';
import { webhookSchemas, withWebhookFanOut } from '../webhooks/index';
import { locationSchema } from './location';
import { productSchema } from './product';
import { reservationAllocationSchema, reservationBackorderSchema, reservationSchema } from './reservation';
import { stockLevelSchema } from './stock-level';
import { stockMovementSchema } from './stock-movement';
import { stockTransferSchema } from './stock-transfer';
import { shipmentSchema } from './shipment';
import { shipmentLineSchema } from './shipment-line';
import { stockReturnSchema } from './stock-return';
import { stockReturnLineSchema } from './stock-return-line';

/**
 * Every table of the stock database, each described once (a file of its own
 * under tables/): the migrations after the history are generated from these
 * (pnpm db:migration), and the drift test holds the database to them.
 */
export function stockEntities(dialect: Dialect): EntitySchema[] {
  const [product, location, reservation, shipment, stockReturn] = [
    productSchema(dialect),
    locationSchema(dialect),
    reservationSchema(dialect),
    shipmentSchema(dialect),
    stockReturnSchema(dialect),
  ];
  return [
    product,
    location,
    stockLevelSchema(product, location),
    stockMovementSchema(dialect),
    stockTransferSchema(dialect),
    reservation,
    reservationAllocationSchema(reservation),
    reservationBackorderSchema(dialect, reservation),
    shipment,
    shipmentLineSchema(shipment),
    stockReturn,
    stockReturnLineSchema(stockReturn),
    idempotencyKeySchema(dialect),
    // The outbox carries the webhook fan-out's mark, and the webhook tables sit beside it (stock's webhooks/ folders).
    withWebhookFanOut(outboxMessageSchema(dialect), dialect),
    ...webhookSchemas(dialect),
  ] as EntitySchema[];
}
