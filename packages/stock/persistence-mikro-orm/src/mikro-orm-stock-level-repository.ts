import type { PreparedStatement, Row, SqlSession } from '@platform/mikro-orm';
import {
  type AppendedMovement,
  type AtOnceOutcome,
  DEFAULT_LOCATION_ID,
  type LevelChange,
  type LevelView,
  type LocationLevel,
  type MovementContext,
  type Product,
  type ProductDetails,
  type ProductStock,
  type ProductStockChange,
  type StockApplication,
  type StockLevelRepository,
} from '@stock/domain';
import { postgresBatchStatements } from './batch-statements';
import { levelsOfMany } from './levels-of-many';
import { toProduct } from './product-rows';
import { MONEY_COLUMN } from './product-schema';
import { type ProductStatements, productStatements } from './product-statements';
import { type TraceIdProvider, writeContext } from './write-context';

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
 *
 * On PostgreSQL, where a transaction costs BEGIN and COMMIT on top of its
 * statements, an adjustment or a PUT that is one plain change is also made
 * in one statement (adjustAtOnce, replaceAtOnce: product-statements.ts has
 * their conditions); SQLite's transactions are in-process, and it has neither.
 */
export class MikroOrmStockLevelRepository implements StockLevelRepository {
  private readonly sql: ProductStatements;
  readonly adjustAtOnce?: StockLevelRepository['adjustAtOnce'];
  readonly replaceAtOnce?: StockLevelRepository['replaceAtOnce'];

  constructor(
    private readonly session: SqlSession,
    private readonly traceOf?: TraceIdProvider,
  ) {
    this.sql = productStatements(session.dialect);
    if (session.dialect === 'postgresql') {
      this.adjustAtOnce = (...args) => this.adjustInOneStatement(...args);
      this.replaceAtOnce = (...args) => this.replaceInOneStatement(...args);
    }
  }

  private async adjustInOneStatement(
    productId: number,
    locationId: number,
    delta: number,
    context: MovementContext,
    lowStockHysteresis: number,
    appended?: AppendedMovement[],
  ): Promise<AtOnceOutcome> {
    const movement = writeContext({ kind: 'adjusted', locationId }, context, this.traceOf);
    const outcome = await this.atOnce(this.sql.adjustAtOnce!, [
      productId,
      locationId,
      delta,
      lowStockHysteresis,
      movement,
    ]);
    if (appended && outcome.status === 'changed') appended.push(...(await this.appendedBy(productId, 1, context)));
    return outcome;
  }

  private async replaceInOneStatement(
    productId: number,
    details: ProductDetails,
    expectedVersion: number | undefined,
    context: MovementContext,
    lowStockHysteresis: number,
    appended?: AppendedMovement[],
  ): Promise<AtOnceOutcome> {
    const versioned = expectedVersion !== undefined;
    const price = MONEY_COLUMN.postgresql.type.convertToDatabaseValue(details.price, this.session.platform);
    const [outcome, row] = await this.atOnceWithRow(this.sql.replaceAtOnce(versioned)!, [
      productId,
      details.quantityInStock,
      details.lowStockThreshold ?? null,
      lowStockHysteresis,
      details.name,
      details.description,
      price,
      details.backorderLimit ?? null,
      writeContext({ kind: 'updated', locationId: DEFAULT_LOCATION_ID }, context, this.traceOf),
      ...(versioned ? [expectedVersion] : []),
    ]);
    // The ledger got a movement only when the stock changed.
    const moved = outcome.status === 'changed' && Number(row?.stock_before) !== outcome.product.quantityInStock;
    if (appended && moved) appended.push(...(await this.appendedBy(productId, 1, context)));
    return outcome;
  }

  /**
   * Sends a change made at once: the product after it, or needs-plan when its conditions did not hold, or when a
   * level the conditions read was changed under the product's lock meanwhile (the level's check refused it, and the
   * statement left nothing).
   */
  private async atOnce(statement: PreparedStatement, params: unknown[]): Promise<AtOnceOutcome> {
    return (await this.atOnceWithRow(statement, params))[0];
  }

  /** As atOnce, with the row the statement answered. */
  private async atOnceWithRow(statement: PreparedStatement, params: unknown[]): Promise<[AtOnceOutcome, Row?]> {
    try {
      const [row] = await this.session.all(statement, params);
      return row ? [{ status: 'changed', product: toProduct(this.session, row) }, row] : [{ status: 'needs-plan' }];
    } catch (error) {
      if (isLevelCheckViolation(error)) return [{ status: 'needs-plan' }];
      throw error;
    }
  }

  /**
   * The last `count` movements of a product its caller just appended (under the product's lock, so they are the
   * last ones), in ledger order, each with its location's level right after it: the level as it is now, less the
   * deltas of the later movements at the same location. One statement, sent only when the caller asked.
   */
  private async appendedBy(productId: number, count: number, { at }: MovementContext): Promise<AppendedMovement[]> {
    if (count === 0) return [];
    const rows = await this.session.all(
      `select "m"."id", "m"."sequence", "m"."kind", "m"."location_id", "m"."quantity_delta", "m"."reserved_delta", "l"."on_hand", "l"."reserved"
        from "stock_movement" "m"
        join "stock_level" "l" on "l"."product_id" = "m"."product_id" and "l"."location_id" = "m"."location_id"
        where "m"."product_id" = ? order by "m"."sequence" desc limit ?`,
      [productId, count],
    );
    const running = new Map<number, { onHand: number; reserved: number }>();
    const movements = rows.map((row): AppendedMovement => {
      const locationId = Number(row.location_id);
      const level = running.get(locationId) ?? { onHand: Number(row.on_hand), reserved: Number(row.reserved) };
      running.set(locationId, {
        onHand: level.onHand - Number(row.quantity_delta),
        reserved: level.reserved - Number(row.reserved_delta),
      });
      return {
        id: Number(row.id),
        sequence: Number(row.sequence),
        kind: row.kind as AppendedMovement['kind'],
        locationId,
        ...level,
        at,
      };
    });
    return movements.reverse();
  }

  async lock(productId: number): Promise<ProductStock | undefined> {
    const [row] = await this.session.all(this.sql.lock, [productId]);
    if (!row) return undefined;
    const levels = await this.session.all(this.sql.levels, [productId]);
    return { product: toProduct(this.session, row), levels: levels.map(toLevel) };
  }

  /** PostgreSQL: the products locked in one statement (in id order), their levels in a second; SQLite: `lock` each. */
  async lockMany(productIds: readonly number[]): Promise<ProductStock[]> {
    const ids = [...new Set(productIds)].sort((a, b) => a - b);
    if (ids.length === 0) return [];
    if (this.session.dialect !== 'postgresql') {
      const stocks: ProductStock[] = [];
      for (const id of ids) {
        const stock = await this.lock(id);
        if (stock) stocks.push(stock);
      }
      return stocks;
    }
    const sql = postgresBatchStatements();
    const products = await this.session.all(sql.lock, [ids]);
    if (products.length === 0) return [];
    const levels = new Map<number, LocationLevel[]>();
    for (const row of await this.session.all(sql.levels, [products.map((row) => Number(row.id))])) {
      const productId = Number(row.product_id);
      levels.set(productId, [...(levels.get(productId) ?? []), toLevel(row)]);
    }
    return products.map((row) => ({
      product: toProduct(this.session, row),
      levels: levels.get(Number(row.id)) ?? [],
    }));
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

  /**
   * PostgreSQL: when each product has one change (an import's), one statement for the batch (batch-statements.ts),
   * with `apply`'s guards; otherwise, and on SQLite, `apply` for each.
   */
  async applyMany(applications: readonly StockApplication[], context: MovementContext): Promise<Product[]> {
    if (this.session.dialect !== 'postgresql' || applications.some(({ changes }) => changes.length !== 1)) {
      const after: Product[] = [];
      for (const { productId, changes, product } of applications)
        after.push(await this.apply(productId, changes, product, context));
      return after;
    }
    const changes = applications.map(({ changes: [change] }) => change!);
    const rows = await this.session.all(postgresBatchStatements().apply, [
      applications.map(({ productId }) => productId),
      changes.map((change) => change.locationId),
      changes.map((change) => change.onHand),
      changes.map((change) => change.reserved),
      changes.map((change) => change.incoming),
      applications.map(({ product }) => product.backordered ?? 0),
      applications.map(({ product }) => product.lowStockAlert ?? null),
      changes.map((change) => writeContext(change, context)),
    ]);
    const after = new Map(rows.map((row) => [Number(row.id), toProduct(this.session, row)]));
    return applications.map(({ productId }, index) => {
      const product = after.get(productId);
      if (!product) throw refused(productId, changes[index]);
      return product;
    });
  }

  async apply(
    productId: number,
    changes: readonly LevelChange[],
    product: ProductStockChange,
    context: MovementContext,
    appended?: AppendedMovement[],
  ): Promise<Product> {
    // The product's own change and its next version ride with the first statement; the ones after add nothing to them.
    const own = (first: boolean) => [
      first ? (product.backordered ?? 0) : 0,
      first ? this.flag(product.lowStockAlert) : null,
    ];
    if (changes.length === 0)
      return this.totals(productId, undefined, own(true), writeContext('updated', context, this.traceOf), 1);
    let after: Product | undefined;
    for (const [index, change] of changes.entries()) {
      const movement = writeContext(change, context, this.traceOf);
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
    if (appended) {
      // As the triggers see it: a change that moves neither on hand nor reserved appends no movement.
      const moving = changes.filter((change) => change.onHand !== 0 || change.reserved !== 0).length;
      appended.push(...(await this.appendedBy(productId, moving, context)));
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

/** PostgreSQL's check_violation of a level's 0 <= reserved <= on hand, however the driver error is wrapped. */
function isLevelCheckViolation(error: unknown): boolean {
  for (let cause: unknown = error, depth = 0; cause && depth < 5; depth++) {
    const { code, constraint } = cause as { code?: unknown; constraint?: unknown };
    if (code === '23514' && constraint === 'stock_level_reserved_check') return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
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
