import type { Row, SqlSession } from '@platform/mikro-orm';
import type {
  LevelChange,
  LevelView,
  LocationLevel,
  MovementContext,
  Product,
  ProductStock,
  ProductStockChange,
  StockLevelRepository,
} from '@stock/domain';
import { levelsOfMany } from './levels-of-many';
import { toProduct } from './product-rows';
import { type ProductStatements, productStatements } from './product-statements';
import { writeContext } from './write-context';

/**
 * Stock by location through MikroORM, inside the caller's transaction. `lock`
 * locks the product row (PostgreSQL: `for update`; SQLite's transactions take
 * turns), then reads its levels in a statement of its own, so that a
 * transaction that waited for the lock reads them as the one before it left
 * them. `apply` sends one statement per change on PostgreSQL (the level's
 * guarded update or creation and the product's totals in one), two or three on SQLite; the ledger
 * trigger appends each change's movement from "write_context", which carries
 * the change's kind, location and transfer. A guard that refuses throws, and
 * the caller's transaction rolls back.
 */
export class MikroOrmStockLevelRepository implements StockLevelRepository {
  private readonly sql: ProductStatements;

  constructor(private readonly session: SqlSession) {
    this.sql = productStatements(session.dialect);
  }

  async lock(productId: number): Promise<ProductStock | undefined> {
    const [row] = await this.session.all(this.sql.lock, [productId]);
    if (!row) return undefined;
    const levels = await this.session.all(this.sql.levels, [productId]);
    return { product: toProduct(this.session, row), levels: levels.map(toLevel) };
  }

  async list(productId: number): Promise<LevelView[] | undefined> {
    const rows = await this.session.all(
      `select "stock_level"."location_id", "location"."code", "stock_level"."on_hand", "stock_level"."reserved", "stock_level"."incoming"
        from "product"
        left join "stock_level" on "stock_level"."product_id" = "product"."id"
        left join "location" on "location"."id" = "stock_level"."location_id"
        where "product"."id" = ? order by "stock_level"."location_id"`,
      [productId],
    );
    if (rows.length === 0) return undefined;
    return rows
      .filter((row) => row.location_id != null)
      .map((row) => ({ ...toLevel(row), locationCode: String(row.code) }));
  }

  listMany(productIds: readonly number[]): Promise<ReadonlyMap<number, LevelView[]>> {
    return levelsOfMany(this.session, productIds);
  }

  async apply(
    productId: number,
    changes: readonly LevelChange[],
    product: ProductStockChange,
    context: MovementContext,
  ): Promise<Product> {
    // The product's own change and its next version ride with the first statement; the ones after add nothing to them.
    const own = (first: boolean) => [
      first ? (product.backordered ?? 0) : 0,
      first ? this.flag(product.lowStockAlert) : null,
    ];
    if (changes.length === 0) return this.totals(productId, undefined, own(true), writeContext('updated', context), 1);
    let after: Product | undefined;
    for (const [index, change] of changes.entries()) {
      const movement = writeContext(change, context);
      const level = [productId, change.locationId, change.onHand, change.reserved, change.incoming];
      if (this.session.dialect === 'postgresql') {
        const [row] = await this.session.all(this.sql.applyLevel, [
          ...level,
          ...this.totalsParams(productId, change, own(index === 0), movement, index === 0 ? 1 : 0),
        ]);
        if (!row) throw refused(productId, change);
        after = toProduct(this.session, row);
      } else {
        const [updated] = await this.session.all(this.sql.applyLevel, level);
        const [created] = updated ? [updated] : await this.session.all(this.sql.createLevel!, level);
        if (!created) throw refused(productId, change);
        after = await this.totals(productId, change, own(index === 0), movement, index === 0 ? 1 : 0);
      }
    }
    return after!;
  }

  private async totals(
    productId: number,
    change: LevelChange | undefined,
    own: unknown[],
    movement: string,
    step: number,
  ): Promise<Product> {
    const [row] = await this.session.all(
      this.sql.applyTotals,
      this.totalsParams(productId, change, own, movement, step),
    );
    if (!row) throw refused(productId, change);
    return toProduct(this.session, row);
  }

  /** The product update's parameters: the totals' deltas, its own change, the movement, the version, the guard's. */
  private totalsParams(
    productId: number,
    change: LevelChange | undefined,
    [backordered, alert]: unknown[],
    movement: string,
    step: number,
  ): unknown[] {
    const [onHand, reserved] = [change?.onHand ?? 0, change?.reserved ?? 0];
    return [onHand, reserved, backordered, alert, movement, step, productId, onHand, backordered];
  }

  /** PostgreSQL binds booleans; SQLite keeps them as 0 and 1. */
  private flag(value: boolean | undefined): boolean | number | null {
    if (value === undefined) return null;
    return this.session.dialect === 'postgresql' ? value : Number(value);
  }
}

function toLevel(row: Row): LocationLevel {
  return {
    locationId: Number(row.location_id),
    onHand: Number(row.on_hand),
    reserved: Number(row.reserved),
    incoming: Number(row.incoming),
  };
}

/** A guard refused a change the plan made: the plan read stale stock, or broke a rule; nothing of it may stay. */
function refused(productId: number, change: LevelChange | undefined): Error {
  const what = change
    ? `${change.kind} at location ${change.locationId} (on hand ${change.onHand}, reserved ${change.reserved}, incoming ${change.incoming})`
    : 'its backorders';
  return new Error(
    `The stock of product ${productId} refused a change, ${what}: it would take a level below what is held or below 0, or the product beyond its bounds (or the product is gone). Was it locked and planned from what the lock read?`,
  );
}
