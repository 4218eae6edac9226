import { EntitySchema, type Platform, Type } from '@mikro-orm/core';
import { Money } from '@stock/domain';

export type Dialect = 'postgresql' | 'sqlite';

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
class NumericMoneyType extends Type<Money, string> {
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
class CentsMoneyType extends Type<Money, number> {
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

/** Where and how each dialect keeps a price, for the statements the repository writes by hand. */
export const MONEY_COLUMN: Readonly<Record<Dialect, { readonly name: string; readonly type: Type<Money, string | number> }>> = {
  postgresql: { name: 'price', type: new NumericMoneyType() },
  sqlite: { name: 'price_cents', type: new CentsMoneyType() },
};

/**
 * The mapping, built per ORM instance: no decorators on domain classes, and each
 * dialect keeps money in its own exact column (see the migrations).
 */
export function productSchema(dialect: Dialect): EntitySchema<ProductRow> {
  const money = { type: MONEY_COLUMN[dialect].type, fieldName: MONEY_COLUMN[dialect].name };
  return new EntitySchema<ProductRow>({
    name: 'Product',
    tableName: 'product',
    properties: {
      id: { type: 'integer', primary: true, autoincrement: true },
      name: { type: 'string', length: 200 },
      description: { type: 'string', length: 2000 },
      price: money,
      quantityInStock: { type: 'integer', fieldName: 'quantity_in_stock' },
      version: { type: 'integer' },
    },
  });
}
