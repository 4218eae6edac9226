import type { SqlSession } from '@platform/persistence';
import {
  type AdjustmentReasonCode,
  type AppendedMovement,
  type AtOnceOutcome,
  type LevelView,
  type LocationLevel,
  type MovementContext,
  NEEDS_PLAN,
  type ProductDetails,
  ProductStock,
  type ProductStockRepository,
  type StockChange,
  type StockPolicy,
} from '@stock/domain';
import { priceOf, productStatements, toProduct } from '../tables/product';
import { LEVEL_STATEMENTS, levelsOfMany, toLevel } from '../tables/stock-level';
import { MOVEMENT_ARRAY_TYPES, MOVEMENT_STATEMENTS, movementValues } from '../tables/stock-movement';
import { ADJUST_AT_ONCE } from './adjust-at-once';
import {
  type LevelDeltas,
  LOCK_MANY,
  REPLACE_AT_ONCE,
  SAVE_ONE,
  SAVE_STOCK,
  SQLITE_LOCK,
  SQLITE_SAVE,
} from './product-stock-statements';

/** The trace a write is made in, when its context does not say: the composition root hands OpenTelemetry's. */
export type TraceIdProvider = () => string | undefined;

/** How a change moves one level: by its deltas (LEVEL_COLUMNS' order), or from nothing when the level is new. */
interface LevelWrite {
  readonly locationId: number;
  readonly deltas: LevelDeltas;
  readonly created: boolean;
}

/** A level's quantities in LEVEL_COLUMNS' order. */
const quantitiesOf = (level: LocationLevel | undefined): LevelDeltas => [
  level?.onHand ?? 0,
  level?.reserved ?? 0,
  level?.committed ?? 0,
  level?.qualityControl ?? 0,
  level?.damaged ?? 0,
  level?.incoming ?? 0,
];

/** The levels a change writes: each whose quantities it moved, by how much (a new one from zero). */
function levelWrites(change: StockChange): LevelWrite[] {
  const before = new Map(change.before.levels.map((level) => [level.locationId, level]));
  const writes: LevelWrite[] = [];
  for (const after of change.after.levels) {
    const was: LocationLevel | undefined = before.get(after.locationId);
    const [from, to] = [quantitiesOf(was), quantitiesOf(after)];
    const deltas = to.map((quantity, index) => quantity - from[index]!) as LevelDeltas;
    if (was && deltas.every((delta) => delta === 0)) continue;
    writes.push({ locationId: after.locationId, deltas, created: !was });
  }
  return writes;
}

/** A product's totals after a change, as the statements write them: stock, then each set-aside state, backordered. */
function totalsAfter({
  product,
}: ProductStock): [
  stock: number,
  reserved: number,
  committed: number,
  qualityControl: number,
  damaged: number,
  backordered: number,
] {
  return [
    product.quantityInStock,
    product.reservedQuantity,
    product.committedQuantity,
    product.qualityControlQuantity,
    product.damagedQuantity,
    product.backorderedQuantity,
  ];
}

/**
 * Products' stock in SQL, inside the caller's transaction. `lock` locks the
 * product row (PostgreSQL: `for update`; SQLite's transactions take turns),
 * then reads its levels in a statement of its own, so that a transaction
 * that waited for the lock reads them as the one before it left them. `save`
 * writes what the ProductStock aggregate decided, as it is: the product's row
 * at its state after (only from the version the lock read), each level moved
 * by the change, and each movement appended to the ledger. On PostgreSQL all
 * of it is one statement, for one product or a batch; on SQLite a few,
 * in-process.
 *
 * On PostgreSQL, where a transaction costs BEGIN and COMMIT on top of its
 * statements, an adjustment or a PUT that is one plain change is also made in
 * one statement (adjustAtOnce, replaceAtOnce: product-stock-statements.ts
 * renders the aggregate's rules into them).
 */
export class SqlProductStockRepository implements ProductStockRepository {
  readonly adjustAtOnce?: ProductStockRepository['adjustAtOnce'];
  readonly replaceAtOnce?: ProductStockRepository['replaceAtOnce'];

  constructor(
    private readonly session: SqlSession,
    private readonly traceOf?: TraceIdProvider,
  ) {
    if (session.dialect === 'postgresql') {
      this.adjustAtOnce = (...args) => this.adjustInOneStatement(...args);
      this.replaceAtOnce = (...args) => this.replaceInOneStatement(...args);
    }
  }

  async lock(productId: number): Promise<ProductStock | undefined> {
    if (this.session.dialect === 'sqlite') return this.readOnSqlite(productId);
    const [row] = await this.session.rows(productStatements(this.session.dialect).lock, [productId]);
    if (!row) return undefined;
    const levels = await this.session.rows(LEVEL_STATEMENTS.ofProduct, [productId]);
    return ProductStock.of(toProduct(this.session, row), levels.map(toLevel), Number(row.movement_sequence));
  }

  /** SQLite: the product and its levels in one statement (its writers take turns: nothing changes under it). */
  private async readOnSqlite(productId: number): Promise<ProductStock | undefined> {
    const rows = await this.session.rows(SQLITE_LOCK, [productId]);
    if (rows.length === 0) return undefined;
    const levels = rows
      .filter((row) => row.location_id !== null)
      .map((row) => ({
        locationId: Number(row.location_id),
        onHand: Number(row.on_hand),
        reserved: Number(row.reserved_at),
        committed: Number(row.committed),
        qualityControl: Number(row.quality_control),
        damaged: Number(row.damaged),
        incoming: Number(row.incoming),
      }));
    return ProductStock.of(toProduct(this.session, rows[0]!), levels, Number(rows[0]!.movement_sequence));
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
    const products = await this.session.rows(LOCK_MANY, [ids]);
    if (products.length === 0) return [];
    const levels = new Map<number, LocationLevel[]>();
    for (const row of await this.session.rows(LEVEL_STATEMENTS.ofProducts, [products.map((row) => Number(row.id))])) {
      const productId = Number(row.product_id);
      levels.set(productId, [...(levels.get(productId) ?? []), toLevel(row)]);
    }
    return products.map((row) =>
      ProductStock.of(toProduct(this.session, row), levels.get(Number(row.id)) ?? [], Number(row.movement_sequence)),
    );
  }

  async list(productId: number): Promise<LevelView[] | undefined> {
    const rows = await this.session.rows(LEVEL_STATEMENTS.withCodes, [productId]);
    if (rows.length === 0) return undefined;
    return rows
      .filter((row) => row.location_id != null)
      .map((row) => ({ ...toLevel(row), locationCode: String(row.code) }));
  }

  listMany(productIds: readonly number[]): Promise<ReadonlyMap<number, LevelView[]>> {
    return levelsOfMany(this.session, productIds);
  }

  async save(change: StockChange, context: MovementContext): Promise<AppendedMovement[]> {
    return (await this.write([change], context))[0]!;
  }

  async saveMany(changes: readonly StockChange[], context: MovementContext): Promise<void> {
    if (changes.length > 0) await this.write(changes, context);
  }

  /** Writes the changes (of distinct products) and answers each one's movements as appended, in its ledger order. */
  private write(changes: readonly StockChange[], context: MovementContext): Promise<AppendedMovement[][]> {
    const traceId = context.traceId ?? this.traceOf?.();
    return this.session.dialect === 'postgresql'
      ? this.writeInOneStatement(changes, context, traceId)
      : this.writeStepByStep(changes, context, traceId);
  }

  private async writeInOneStatement(
    changes: readonly StockChange[],
    context: MovementContext,
    traceId: string | undefined,
  ): Promise<AppendedMovement[][]> {
    const [only] = changes;
    if (changes.length === 1) {
      const writes = levelWrites(only!);
      if (writes.length === 1 && !writes[0]!.created && only!.movements.length <= 1)
        return [await this.writeOne(only!, writes[0]!, context, traceId)];
    }
    const products = changes.map(({ before, after }) => [
      after.product.id,
      before.product.version,
      after.product.version,
      ...totalsAfter(after),
      after.product.stock.lowStockAlert,
      after.sequence,
    ]);
    const levels = changes.flatMap((change) =>
      levelWrites(change).map((write) => [change.productId, write.locationId, ...write.deltas, write.created]),
    );
    const movements = changes.flatMap((change) =>
      change.movements.map((movement) => movementValues(change.productId, movement, context, traceId)),
    );
    const rows = await this.session.rows(SAVE_STOCK, [
      ...columnsOf(products, 11),
      ...columnsOf(levels, 9),
      ...columnsOf(movements, MOVEMENT_ARRAY_TYPES.length),
    ]);
    const saved = new Set(rows.map((row) => Number(row.product_id)));
    const missing = changes.filter((change) => !saved.has(change.productId));
    if (missing.length > 0) throw stale(missing[0]!);
    if (Number(rows[0]!.levels) !== levels.length) throw levelGone(changes[0]!);
    const ids = new Map(
      rows.filter((row) => row.id !== null).map((row) => [`${row.product_id}/${row.sequence}`, Number(row.id)]),
    );
    return changes.map((change) => appended(change, context, (sequence) => ids.get(`${change.productId}/${sequence}`)));
  }

  /** The common change: one product, one level it has, one movement or none (SAVE_ONE). */
  private async writeOne(
    change: StockChange,
    level: LevelWrite,
    context: MovementContext,
    traceId: string | undefined,
  ): Promise<AppendedMovement[]> {
    const { before, after } = change;
    const [movement] = change.movements;
    const values = movement
      ? movementValues(change.productId, movement, context, traceId).slice(1)
      : Array<null>(MOVEMENT_ARRAY_TYPES.length - 1).fill(null);
    const [row] = await this.session.rows(SAVE_ONE, [
      ...totalsAfter(after),
      ...[
        after.product.stock.lowStockAlert,
        after.sequence,
        after.product.version,
        after.product.id,
        before.product.version,
      ],
      ...level.deltas,
      level.locationId,
      ...values,
      movement !== undefined,
    ]);
    if (!row) throw stale(change);
    if (Number(row.levels) !== 1) throw levelGone(change);
    return appended(change, context, () => (row.id === null ? undefined : Number(row.id)));
  }

  private async writeStepByStep(
    changes: readonly StockChange[],
    context: MovementContext,
    traceId: string | undefined,
  ): Promise<AppendedMovement[][]> {
    const answers: AppendedMovement[][] = [];
    for (const change of changes) {
      const { before, after } = change;
      const [saved] = await this.session.rows(SQLITE_SAVE.product, [
        ...totalsAfter(after),
        Number(after.product.stock.lowStockAlert),
        after.sequence,
        after.product.version,
        after.product.id,
        before.product.version,
      ]);
      if (!saved) throw stale(change);
      for (const write of levelWrites(change)) {
        const moved = write.created
          ? await this.session.run(SQLITE_SAVE.createLevel, [change.productId, write.locationId, ...write.deltas])
          : await this.session.run(SQLITE_SAVE.moveLevel, [...write.deltas, change.productId, write.locationId]);
        if (moved !== 1) throw levelGone(change);
      }
      const ids = new Map<number, number>();
      for (const movement of change.movements) {
        const values = movementValues(change.productId, movement, context, traceId);
        ids.set(movement.sequence, await this.session.insert(MOVEMENT_STATEMENTS.append, values));
      }
      answers.push(appended(change, context, (sequence) => ids.get(sequence)));
    }
    return answers;
  }

  private async adjustInOneStatement(
    productId: number,
    locationId: number,
    delta: number,
    reasonCode: AdjustmentReasonCode,
    context: MovementContext,
    policy: StockPolicy,
  ): Promise<AtOnceOutcome> {
    const [row] = await this.session.rows(ADJUST_AT_ONCE, [
      productId,
      locationId,
      delta,
      policy.lowStockHysteresis,
      reasonCode,
      ...this.contextParams(context),
    ]);
    return row ? { status: 'changed', product: toProduct(this.session, row) } : NEEDS_PLAN;
  }

  private async replaceInOneStatement(
    productId: number,
    details: ProductDetails,
    expectedVersion: number | undefined,
    context: MovementContext,
    policy: StockPolicy,
  ): Promise<AtOnceOutcome> {
    const versioned = expectedVersion !== undefined;
    const [row] = await this.session.rows(REPLACE_AT_ONCE[versioned ? 'versioned' : 'unversioned'], [
      productId,
      details.quantityInStock,
      details.lowStockThreshold ?? null,
      policy.lowStockHysteresis,
      details.name,
      details.description,
      priceOf(this.session, details.price),
      details.backorderLimit ?? null,
      ...this.contextParams(context),
      ...(versioned ? [expectedVersion] : []),
    ]);
    return row ? { status: 'changed', product: toProduct(this.session, row) } : NEEDS_PLAN;
  }

  /** The movement context a one-statement path appends with: reason, request, actor, trace, time. */
  private contextParams({ reason, requestId, actor, traceId, at }: MovementContext): unknown[] {
    return [reason ?? null, requestId ?? null, actor, traceId ?? this.traceOf?.() ?? null, at];
  }
}

/** Rows of values as one array per column: what PostgreSQL's unnest takes. */
function columnsOf(rows: readonly (readonly unknown[])[], width: number): unknown[][] {
  return Array.from({ length: width }, (_, column) => rows.map((row) => row[column]));
}

/** A change's movements as appended: the ids the store gave them, with the level after each. */
function appended(
  change: StockChange,
  { at }: MovementContext,
  idOf: (sequence: number) => number | undefined,
): AppendedMovement[] {
  return change.movements.map((movement) => {
    const { sequence, kind, locationId, onHand, reserved, committed, qualityControl, damaged } = movement;
    const id = idOf(sequence);
    if (id === undefined) throw new Error(`Movement ${sequence} of product ${change.productId} was not appended.`);
    return { id, sequence, kind, locationId, onHand, reserved, committed, qualityControl, damaged, at };
  });
}

/** A change decided from a version the product is no longer at: it was not decided under the product's lock. */
function stale(change: StockChange): Error {
  return new Error(
    `Product ${change.productId} is not at version ${change.before.product.version} any more (or is gone): its change was not decided under its lock, and nothing of it was written.`,
  );
}

/** A level the change moves was not there to move (its location was removed meanwhile). */
function levelGone(change: StockChange): Error {
  return new Error(`A level of product ${change.productId} the change moves is gone: nothing of it was written.`);
}
