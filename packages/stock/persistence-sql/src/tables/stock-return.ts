import { EntitySchema } from '@mikro-orm/core';
import type { Dialect } from '@platform/persistence';
import { timeColumn as time } from './columns';

/** The stock_return table: shipped units of an order that came back (their lines are stock_return_line's). */
export interface StockReturnRow {
  id: string;
  orderId: string;
  reason: string | null;
  createdAt: Date | number;
}

/** A return keeps its order's id without a foreign key: the order is the sales service's. */
export function stockReturnSchema(dialect: Dialect): EntitySchema<StockReturnRow> {
  return new EntitySchema<StockReturnRow>({
    name: 'StockReturn',
    tableName: 'stock_return',
    indexes: [{ name: 'stock_return_order_id_index', properties: ['orderId'] }],
    properties: {
      id: { type: 'string', length: 36, primary: true },
      orderId: { type: 'string', length: 36, fieldName: 'order_id' },
      reason: { type: 'string', length: 500, nullable: true },
      createdAt: time(dialect, 'created_at'),
    },
  });
}
