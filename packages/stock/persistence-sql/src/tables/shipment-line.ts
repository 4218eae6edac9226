import { EntitySchema } from '@mikro-orm/core';
import type { ShipmentRow } from './shipment';

/** Units of one product that left one location in a shipment. */
export interface ShipmentLineRow {
  shipment: ShipmentRow;
  productId: number;
  locationId: number;
  quantity: number;
}

/**
 * One row per product and location of a shipment, gone with it. The product's and the location's ids are kept
 * without foreign keys, as a transfer keeps them: a shipment is history, which outlives both.
 */
export function shipmentLineSchema(shipment: EntitySchema<ShipmentRow>): EntitySchema<ShipmentLineRow> {
  return new EntitySchema<ShipmentLineRow>({
    name: 'ShipmentLine',
    tableName: 'shipment_line',
    checks: [{ name: 'shipment_line_quantity_check', expression: '"quantity" > 0' }],
    properties: {
      // The first column of the primary key, whose index it therefore needs no other of.
      shipment: {
        kind: 'm:1',
        entity: () => shipment,
        primary: true,
        fieldName: 'shipment_id',
        deleteRule: 'cascade',
        index: false,
      },
      productId: { type: 'integer', primary: true, fieldName: 'product_id' },
      locationId: { type: 'integer', primary: true, fieldName: 'location_id' },
      quantity: { type: 'integer' },
    },
  });
}
