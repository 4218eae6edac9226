import type { MigrationObject } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';
import type { Dialect } from '@platform/persistence';

/**
 * The ledger is written by the code that moves stock, in the same statement
 * or transaction (ADR 0024): the triggers the history made to write it go,
 * and on PostgreSQL their functions. The history made them outside any
 * mapping, and no schema diff sees them whole (MikroORM 7.2.1 reads a SQLite
 * trigger declared `after update of …` as none, and names PostgreSQL trigger
 * functions its own way), so this one step is written by hand; the column
 * they read goes in the generated migration after it. There is no way back:
 * a database taken below this needs the code that wrote through the triggers,
 * a checkout from before ADR 0024.
 */
export function ledgerTriggersDropped(dialect: Dialect): MigrationObject['class'] {
  const statements =
    dialect === 'postgresql'
      ? [
          'drop trigger "product_stock_movement" on "product"',
          'drop trigger "product_number_stock_movement" on "product"',
          'drop function "append_stock_movement"()',
          'drop function "number_stock_movement"()',
        ]
      : ['drop trigger "product_stock_movement_on_insert"', 'drop trigger "product_stock_movement_on_update"'];
  return class LedgerTriggersDropped extends Migration {
    override async up(): Promise<void> {
      for (const sql of statements) this.addSql(sql);
    }

    override async down(): Promise<void> {
      throw new Error('The ledger triggers are not made again: migrate down with a checkout from before ADR 0024.');
    }
  };
}
