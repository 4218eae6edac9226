import { EntitySchema } from '@mikro-orm/core';
import type { Dialect } from '@platform/persistence';
import { timeColumn as time } from './columns';

/** The stock_transfer table: units of a product on their way between two locations. */
export interface StockTransferRow {
  id: string;
  productId: number;
  fromLocationId: number;
  toLocationId: number;
  quantity: number;
  reference: string;
  status: string;
  createdAt: Date | number;
  updatedAt: Date | number;
}

/** Transfers keep their products' and locations' ids without foreign keys: a transfer outlives both, as history. */
export function stockTransferSchema(dialect: Dialect): EntitySchema<StockTransferRow> {
  return new EntitySchema<StockTransferRow>({
    name: 'StockTransfer',
    tableName: 'stock_transfer',
    uniques: [{ name: 'stock_transfer_reference_unique', properties: ['reference'] }],
    // The list of transfers filtered by product or by status, newest first (the back office's views of it).
    indexes: [
      { name: 'stock_transfer_product_id_created_at_index', properties: ['productId', 'createdAt'] },
      { name: 'stock_transfer_status_created_at_index', properties: ['status', 'createdAt'] },
    ],
    checks: [{ name: 'stock_transfer_quantity_check', expression: '"quantity" > 0' }],
    properties: {
      id: { type: 'string', length: 36, primary: true },
      productId: { type: 'integer', fieldName: 'product_id' },
      fromLocationId: { type: 'integer', fieldName: 'from_location_id' },
      toLocationId: { type: 'integer', fieldName: 'to_location_id' },
      quantity: { type: 'integer' },
      reference: { type: 'string', length: 200 },
      status: { enum: true, items: ['in-transit', 'received', 'cancelled'], type: 'text' },
      createdAt: time(dialect, 'created_at'),
      updatedAt: time(dialect, 'updated_at'),
    },
  });
}
