import { EntitySchema } from '@mikro-orm/core';
import { RETURN_DISPOSITIONS } from '@stock/domain';
import type { StockReturnRow } from './stock-return';

/** Units of one product that came back to one location, with what became of them. */
export interface StockReturnLineRow {
  stockReturn: StockReturnRow;
  productId: number;
  locationId: number;
  disposition: string;
  quantity: number;
}

/** One row per product, location and disposition of a return, gone with it; ids kept as shipment_line keeps them. */
export function stockReturnLineSchema(stockReturn: EntitySchema<StockReturnRow>): EntitySchema<StockReturnLineRow> {
  return new EntitySchema<StockReturnLineRow>({
    name: 'StockReturnLine',
    tableName: 'stock_return_line',
    checks: [{ name: 'stock_return_line_quantity_check', expression: '"quantity" > 0' }],
    properties: {
      stockReturn: {
        kind: 'm:1',
        entity: () => stockReturn,
        primary: true,
        fieldName: 'return_id',
        deleteRule: 'cascade',
        index: false,
      },
      productId: { type: 'integer', primary: true, fieldName: 'product_id' },
      locationId: { type: 'integer', primary: true, fieldName: 'location_id' },
      disposition: { enum: true, items: [...RETURN_DISPOSITIONS], type: 'text', primary: true },
      quantity: { type: 'integer' },
    },
  });
}
