import type { MigrationObject } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';
import type { Dialect } from '@platform/persistence';

/**
 * The named stock states (ADR 0029) take the generated migration between two
 * steps no schema diff can write.
 *
 * Before it, on SQLite, the levels get their new states' columns: SQLite
 * changes a check only by rebuilding the table, and MikroORM 7.2.1's rebuild
 * copies null into columns it adds at the same time, which their NOT NULL
 * refuses. With the columns there first, the rebuild copies every column.
 */
export function levelStatesAdded(): MigrationObject['class'] {
  return class LevelStatesAdded extends Migration {
    override async up(): Promise<void> {
      for (const column of ['committed', 'quality_control', 'damaged'])
        this.addSql(`alter table "stock_level" add column "${column}" integer not null default 0`);
    }

    override async down(): Promise<void> {
      for (const column of ['committed', 'quality_control', 'damaged'])
        this.addSql(`alter table "stock_level" drop column "${column}"`);
    }
  };
}

/** What the searches write for a product's available units since the states (AVAILABLE_SQL), word for word. */
const AVAILABLE_AFTER =
  '("quantity_in_stock" - "reserved_quantity" - "committed_quantity" - "quality_control_quantity" - "damaged_quantity" - "backordered_quantity")';
const stockState = (available: string) =>
  `(case when ${available} <= 0 then 'out' when ${available} < "low_stock_threshold" then 'low' else 'in' end)`;

/** The expression indexes on a product's available units, by their expression of `available`. */
const availableIndexes = (available: string) =>
  [
    ['product_available_id_index', `${available}, "id"`],
    ['product_available_desc_id_index', `${available} desc, "id"`],
    ['product_stock_state_id_index', `${stockState(available)}, "id"`],
  ] as const;

/**
 * After it, on both databases: every movement says why and who. A row of
 * the ledger from before carries the code of its kind (an adjustment's is
 * `correction`, the column's default), and a row that named nobody was made
 * by the order flow when its hold is an order's (`sales`), else by the
 * anonymous caller; its new deltas are 0, as the columns' default says.
 * Then the catalogue's indexes on available units are made again with
 * the expression the searches now write (AVAILABLE_SQL): MikroORM compares
 * expression indexes by name only, so no diff sees the change, and a planner
 * uses an expression index only for the same expression.
 *
 * There is no way back: below the states, units committed to paid orders,
 * in quality control or damaged would count as available, and be sold.
 */
export function ledgerNamedFromKinds(): MigrationObject['class'] {
  return class LedgerNamedFromKinds extends Migration {
    override async up(): Promise<void> {
      this.addSql(`update "stock_movement" set "reason_code" = "kind" where "kind" <> 'adjusted'`);
      this.addSql(
        `update "stock_movement" set "actor" = case when "reservation_id" in (select "id" from "reservation" where "origin" = 'order') then 'sales' else 'anonymous' end where "actor" is null`,
      );
      for (const [name, columns] of availableIndexes(AVAILABLE_AFTER)) {
        this.addSql(`drop index "${name}"`);
        this.addSql(`create index "${name}" on "product" (${columns})`);
      }
    }

    override async down(): Promise<void> {
      throw new Error(
        'The named stock states are not undone: their units would count as available. Migrate down with a checkout from before ADR 0029.',
      );
    }
  };
}

/** The steps around the generated migration, each named as it is recorded, per dialect. */
export const NAMED_STOCK_STATES = {
  before: (dialect: Dialect): MigrationObject[] =>
    dialect === 'sqlite' ? [{ name: '20261129-level-states-added', class: levelStatesAdded() }] : [],
  after: (): MigrationObject => ({ name: '20261129-ledger-named-from-kinds', class: ledgerNamedFromKinds() }),
};
