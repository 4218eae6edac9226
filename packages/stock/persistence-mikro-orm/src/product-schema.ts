import { EntitySchema, type Platform, Type } from '@mikro-orm/core';
import { type Dialect, idempotencyKeySchema } from '@platform/mikro-orm';
import { Money } from '@stock/domain';

/** A product as a database row; the repository turns it into the domain's Product. */
export interface ProductRow {
  id: number;
  name: string;
  description: string;
  price: Money;
  quantityInStock: number;
  version: number;
}

/** PostgreSQL keeps money as numeric(15,2), exchanged as text so no double is ever involved. */
export class NumericMoneyType extends Type<Money, string> {
  override convertToDatabaseValue(value: Money): string {
    return value.toString();
  }
  override convertToJSValue(value: string): Money {
    return Money.fromDecimalString(value);
  }
  override compareAsType(): string {
    return 'string';
  }
  override getColumnType(): string {
    return 'numeric(15,2)';
  }
}

/** SQLite has no exact decimal type, and REAL would round: money is integer cents there. */
export class CentsMoneyType extends Type<Money, number> {
  override convertToDatabaseValue(value: Money): number {
    return value.cents;
  }
  override convertToJSValue(value: number): Money {
    return Money.fromCents(Number(value));
  }
  override compareAsType(): string {
    return 'number';
  }
  override getColumnType(_prop: unknown, platform: Platform): string {
    return platform.getIntegerTypeDeclarationSQL({});
  }
}

/** Where and how each dialect keeps a price. */
export const MONEY_COLUMN: Readonly<Record<Dialect, { readonly name: string; readonly type: Type<Money, string | number> }>> = {
  postgresql: { name: 'price', type: new NumericMoneyType() },
  sqlite: { name: 'price_cents', type: new CentsMoneyType() },
};

/**
 * The product table's mapping, built per dialect (each keeps money in its own
 * exact column): no decorators on domain classes. The migrations create the
 * table; the schema-drift test holds the two together.
 */
export function productSchema(dialect: Dialect): EntitySchema<ProductRow> {
  const price = MONEY_COLUMN[dialect].name;
  return new EntitySchema<ProductRow>({
    name: 'Product',
    tableName: 'product',
    // The migrations' check constraints; MikroORM 6 cannot read SQLite's back, so there they live in the migration only.
    checks:
      dialect === 'postgresql'
        ? [
            { name: 'product_price_check', expression: `"${price}" >= 0` },
            { name: 'product_quantity_in_stock_check', expression: '"quantity_in_stock" >= 0' },
          ]
        : [],
    properties: {
      // PostgreSQL: an identity column, as the first migration made it. SQLite: AUTOINCREMENT, so ids are never
      // reused; its catalog calls an INTEGER PRIMARY KEY without NOT NULL nullable, though a NULL there becomes the next id.
      id: { type: 'integer', primary: true, autoincrement: true, ...(dialect === 'postgresql' ? { generated: 'by default as identity' } : { nullable: true }) },
      name: { type: 'string', length: 200 },
      description: { type: 'string', length: 2000, default: '' },
      price: { type: MONEY_COLUMN[dialect].type, fieldName: MONEY_COLUMN[dialect].name },
      quantityInStock: { type: 'integer', fieldName: 'quantity_in_stock', default: 0 },
      // Every write moves it on: the product's ETag, and the guard of conditional writes.
      version: { type: 'integer', version: true, default: 1 },
    },
  });
}

/** Every table the stock migrations create. */
export function stockEntities(dialect: Dialect): EntitySchema[] {
  return [productSchema(dialect), idempotencyKeySchema(dialect)] as EntitySchema[];
}
