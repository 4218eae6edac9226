import type { SqlSession } from '@platform/mikro-orm';
import type { LevelView } from '@stock/domain';

/**
 * The levels of a batch of products in one statement (by the primary key's
 * leading product_id), each product's in location id order; a product with no
 * level is absent.
 */
export async function levelsOfMany(
  session: SqlSession,
  productIds: readonly number[],
): Promise<ReadonlyMap<number, LevelView[]>> {
  const levels = new Map<number, LevelView[]>();
  if (productIds.length === 0) return levels;
  const rows = await session.all(
    `select "stock_level"."product_id", "stock_level"."location_id", "location"."code",
        "stock_level"."on_hand", "stock_level"."reserved", "stock_level"."incoming"
      from "stock_level" join "location" on "location"."id" = "stock_level"."location_id"
      where "stock_level"."product_id" in (${productIds.map(() => '?').join(', ')})
      order by "stock_level"."product_id", "stock_level"."location_id"`,
    [...productIds],
  );
  for (const row of rows) {
    const productId = Number(row.product_id);
    const list = levels.get(productId) ?? [];
    list.push({
      locationId: Number(row.location_id),
      locationCode: String(row.code),
      onHand: Number(row.on_hand),
      reserved: Number(row.reserved),
      incoming: Number(row.incoming),
    });
    levels.set(productId, list);
  }
  return levels;
}
