import { EntitySchema } from '@mikro-orm/core';
import { query, type Row, type SqlSession } from '@platform/persistence';
import { LEVEL_HAS_AVAILABLE, LEVEL_IS_EMPTY, type LevelName, type LevelView, type LocationLevel } from '@stock/domain';
import { renderCondition } from '../stock/render-condition';
import type { LocationRow } from './location';
import type { ProductRow } from './product';

/**
 * The stock_level table: a product's stock at one location. The product's
 * quantities are the sums over its levels, and both move in the same
 * statement or transaction (../stock/product-stock-statements.ts).
 */

/** A product's stock at one location; the product's quantities are the sums over its levels. */
export interface StockLevelRow {
  product: ProductRow;
  location: LocationRow;
  onHand: number;
  reserved: number;
  committed: number;
  qualityControl: number;
  damaged: number;
  incoming: number;
}

/** The level's quantities, in the order every statement reads them (toLevel). */
export const LEVEL_COLUMNS = ['on_hand', 'reserved', 'committed', 'quality_control', 'damaged', 'incoming'] as const;

/** LEVEL_COLUMNS of the level aliased `table`, for a select. */
export const levelColumns = (table?: string): string =>
  LEVEL_COLUMNS.map((column) => (table ? `"${table}"."${column}"` : `"${column}"`)).join(', ');

/**
 * Its checks are the level's invariant (levelIsValid: every state ≥ 0, the set-aside states together within on hand),
 * declared once as the database's safety net: the aggregate never asks for a level that breaks it. A sum past int4
 * is past on hand too: PostgreSQL refuses it as out of range rather than as the check, refused all the same.
 */
export function stockLevelSchema(
  product: EntitySchema<ProductRow>,
  location: EntitySchema<LocationRow>,
): EntitySchema<StockLevelRow> {
  return new EntitySchema<StockLevelRow>({
    name: 'StockLevel',
    tableName: 'stock_level',
    indexes: [{ name: 'stock_level_location_id_index', properties: ['location'] }],
    checks: [
      {
        name: 'stock_level_states_check',
        expression:
          '"reserved" >= 0 and "committed" >= 0 and "quality_control" >= 0 and "damaged" >= 0 and "reserved" + "committed" + "quality_control" + "damaged" <= "on_hand"',
      },
      { name: 'stock_level_incoming_check', expression: '"incoming" >= 0' },
    ],
    properties: {
      // A product's levels go with it (the primary key, which starts with it, is its index); a location with levels
      // stays (the repository removes its empty ones first).
      product: {
        kind: 'm:1',
        entity: () => product,
        primary: true,
        fieldName: 'product_id',
        deleteRule: 'cascade',
        index: false,
      },
      location: {
        kind: 'm:1',
        entity: () => location,
        primary: true,
        fieldName: 'location_id',
        deleteRule: 'restrict',
      },
      onHand: { type: 'integer', fieldName: 'on_hand', default: 0 },
      reserved: { type: 'integer', default: 0 },
      committed: { type: 'integer', default: 0 },
      qualityControl: { type: 'integer', fieldName: 'quality_control', default: 0 },
      damaged: { type: 'integer', default: 0 },
      incoming: { type: 'integer', default: 0 },
    },
  });
}

/** The level's columns as the rules name them, in a table aliased `table` (@stock/domain's LevelName). */
export function levelNames(table = 'stock_level'): Readonly<Record<LevelName, string>> {
  return {
    onHand: `"${table}"."on_hand"`,
    reserved: `"${table}"."reserved"`,
    committed: `"${table}"."committed"`,
    qualityControl: `"${table}"."quality_control"`,
    damaged: `"${table}"."damaged"`,
    incoming: `"${table}"."incoming"`,
  };
}

/** LEVEL_IS_EMPTY of the level aliased `table`. */
export const levelIsEmpty = (table = 'stock_level'): string => renderCondition(LEVEL_IS_EMPTY, levelNames(table));

/** LEVEL_HAS_AVAILABLE of the level aliased `table`. */
export const levelHasAvailable = (table = 'stock_level'): string =>
  renderCondition(LEVEL_HAS_AVAILABLE, levelNames(table));

interface LevelDbRow extends Row {
  location_id: number;
  on_hand: number;
  reserved: number;
  committed: number;
  quality_control: number;
  damaged: number;
  incoming: number;
}

export const LEVEL_STATEMENTS = {
  /** A product's levels in location id order: read after its lock, so READ COMMITTED reads them as they are now. */
  ofProduct: query<[productId: number], LevelDbRow>(
    `select "location_id", ${levelColumns()} from "stock_level" where "product_id" = ? order by "location_id"`,
  ),
  /** A product's levels with their location codes; one row with no location when the product has none. */
  withCodes: query<[productId: number], LevelDbRow & { code: string | null }>(
    `select "stock_level"."location_id", "location"."code", ${levelColumns('stock_level')}
      from "product"
      left join "stock_level" on "stock_level"."product_id" = "product"."id"
      left join "location" on "location"."id" = "stock_level"."location_id"
      where "product"."id" = ? order by "stock_level"."location_id"`,
  ),
  /** PostgreSQL: the levels of several products, by product then location. */
  ofProducts: query<[productIds: number[]], LevelDbRow & { product_id: number }>(
    `select "product_id", "location_id", ${levelColumns()} from "stock_level" where "product_id" = any(?::integer[]) order by "product_id", "location_id"`,
  ),
} as const;

export function toLevel(row: Row): LocationLevel {
  return {
    locationId: Number(row.location_id),
    onHand: Number(row.on_hand),
    reserved: Number(row.reserved),
    committed: Number(row.committed),
    qualityControl: Number(row.quality_control),
    damaged: Number(row.damaged),
    incoming: Number(row.incoming),
  };
}

/**
 * The levels of a batch of products in one statement (by the primary key's
 * leading product_id), each product's in location id order, with the
 * location codes; a product with no level is absent.
 */
export async function levelsOfMany(
  session: SqlSession,
  productIds: readonly number[],
): Promise<ReadonlyMap<number, LevelView[]>> {
  const levels = new Map<number, LevelView[]>();
  if (productIds.length === 0) return levels;
  const rows = await session.all(
    `select "stock_level"."product_id", "stock_level"."location_id", "location"."code", ${levelColumns('stock_level')}
      from "stock_level" join "location" on "location"."id" = "stock_level"."location_id"
      where "stock_level"."product_id" in (${productIds.map(() => '?').join(', ')})
      order by "stock_level"."product_id", "stock_level"."location_id"`,
    [...productIds],
  );
  for (const row of rows) {
    const productId = Number(row.product_id);
    const list = levels.get(productId) ?? [];
    list.push({ ...toLevel(row), locationCode: String(row.code) });
    levels.set(productId, list);
  }
  return levels;
}
