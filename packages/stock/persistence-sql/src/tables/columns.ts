import { type Platform, Type } from '@mikro-orm/core';
import type { Dialect } from '@platform/persistence';
import { Money } from '@stock/domain';

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
export const MONEY_COLUMN: Readonly<
  Record<Dialect, { readonly name: string; readonly type: Type<Money, string | number> }>
> = {
  postgresql: { name: 'price', type: new NumericMoneyType() },
  sqlite: { name: 'price_cents', type: new CentsMoneyType() },
};

/** Times: timestamptz on PostgreSQL, epoch milliseconds on SQLite (which has no time type). */
export function timeColumn(
  dialect: Dialect,
  fieldName: string,
): { type: string; columnType?: string; fieldName: string } {
  return dialect === 'postgresql'
    ? { type: 'datetime', columnType: 'timestamptz', fieldName }
    : { type: 'integer', fieldName };
}

/** A generated integer key: an identity column on PostgreSQL, AUTOINCREMENT on SQLite (ids are never reused). */
export function identity(dialect: Dialect, type: 'integer' | 'bigint' = 'integer') {
  // SQLite's catalog calls an INTEGER PRIMARY KEY without NOT NULL nullable, though a NULL there becomes the next id.
  return {
    type: dialect === 'postgresql' ? type : 'integer',
    primary: true,
    autoincrement: true,
    ...(dialect === 'postgresql' ? { generated: 'by default as identity' } : { nullable: true }),
  } as const;
}
