import type { Row, SqlSession } from '@platform/mikro-orm';
import { Product, ProductDetails } from '@stock/domain';
import { MONEY_COLUMN } from './product-schema';

type SqlDialect = SqlSession['dialect'];

/** The product columns every read and write answers, for one dialect (each keeps money in its own column). */
export function productColumns(dialect: SqlDialect): string {
  return `"id", "name", "description", "${MONEY_COLUMN[dialect].name}", "quantity_in_stock", "reserved_quantity", "backorder_limit", "backordered_quantity", "low_stock_threshold", "low_stock_alert", "sku", "version"`;
}

/** A product row (productColumns) as the domain's Product; SQLite answers the alert as 0 or 1. */
export function toProduct(session: SqlSession, row: Row): Product {
  const money = MONEY_COLUMN[session.dialect];
  const details = ProductDetails.restore({
    name: String(row.name),
    description: String(row.description),
    price: money.type.convertToJSValue(row[money.name] as never, session.platform),
    quantityInStock: Number(row.quantity_in_stock),
    backorderLimit: Number(row.backorder_limit),
    lowStockThreshold: Number(row.low_stock_threshold),
    sku: row.sku == null ? null : String(row.sku),
  });
  return Product.of(Number(row.id), details, Number(row.version), Number(row.reserved_quantity), {
    backorderedQuantity: Number(row.backordered_quantity),
    lowStockAlert: row.low_stock_alert === true || Number(row.low_stock_alert) === 1,
  });
}
