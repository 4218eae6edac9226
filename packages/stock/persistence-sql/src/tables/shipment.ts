import { EntitySchema } from '@mikro-orm/core';
import type { Dialect } from '@platform/persistence';
import { timeColumn as time } from './columns';

/** The shipment table: units of an order that left the warehouse (their lines are shipment_line's). */
export interface ShipmentRow {
  id: string;
  orderId: string;
  carrier: string | null;
  trackingNumber: string | null;
  createdAt: Date | number;
}

/** A shipment keeps its order's id without a foreign key: the order is the sales service's. */
export function shipmentSchema(dialect: Dialect): EntitySchema<ShipmentRow> {
  return new EntitySchema<ShipmentRow>({
    name: 'Shipment',
    tableName: 'shipment',
    indexes: [{ name: 'shipment_order_id_index', properties: ['orderId'] }],
    properties: {
      id: { type: 'string', length: 36, primary: true },
      orderId: { type: 'string', length: 36, fieldName: 'order_id' },
      carrier: { type: 'string', length: 100, nullable: true },
      trackingNumber: { type: 'string', length: 100, fieldName: 'tracking_number', nullable: true },
      createdAt: time(dialect, 'created_at'),
    },
  });
}
