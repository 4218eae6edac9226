import {
  ADD_PRODUCT,
  ADJUST_AT_ONCE,
  LEVEL_STATEMENTS,
  type ProductStatements,
  productStatements,
  REPLACE_AT_ONCE,
  SAVE_STOCK,
} from '@stock/persistence-sql';
import pg from 'pg';
import { movementValues, requestContext } from './movement-context';
import type { BodyProduct, Handlers, StoredProduct } from './raw-http';

/** What a statement needs to go out named: its name and its numbered text. */
type PreparedStatement = Pick<ProductStatements['findById'], 'name' | 'numbered'>;

interface Row {
  id: number;
  name: string;
  description: string;
  price: string;
  quantity_in_stock: number;
  reserved_quantity: number;
  backorder_limit: number;
  backordered_quantity: number;
  low_stock_threshold: number;
  sku: string | null;
  version: number;
  movement_sequence?: number;
  low_stock_alert?: boolean;
  committed_quantity?: number;
  quality_control_quantity?: number;
  damaged_quantity?: number;
}

interface LevelRow {
  location_id: number;
  on_hand: number;
  reserved: number;
  incoming: number;
}

const stored = (row: Row): StoredProduct => ({
  id: row.id,
  name: row.name,
  description: row.description,
  price: Number(row.price),
  quantityInStock: row.quantity_in_stock,
  reservedQuantity: row.reserved_quantity,
  backorderLimit: row.backorder_limit,
  backorderedQuantity: row.backordered_quantity,
  lowStockThreshold: row.low_stock_threshold,
  version: row.version,
  committedQuantity: Number(row.committed_quantity ?? 0),
  qualityControlQuantity: Number(row.quality_control_quantity ?? 0),
  damagedQuantity: Number(row.damaged_quantity ?? 0),
});

/** The default location's id (DEFAULT_LOCATION_ID), where a client that names no location keeps its stock. */
const DEFAULT_LOCATION = 1;
/** LOW_STOCK_HYSTERESIS as the service has it by default. */
const HYSTERESIS = 1;

/**
 * The service's own statements (its repositories', imported, so they cannot
 * drift) with the parameters it sends, on a plain pg pool, as the service
 * sends them: a GET, a page and a POST one statement each without
 * BEGIN/COMMIT; a PUT and an adjustment too, as the one statement that makes a
 * plain change at once (ADJUST_AT_ONCE, REPLACE_AT_ONCE: the bench's products
 * have stock at the default location alone, no threshold and no backorders),
 * and only when it answers nothing, a transaction that locks the product,
 * reads its levels and saves the change (SAVE_STOCK: the product, the level
 * and the movement in one statement), the PUT its details first. The rules
 * there are the aggregate's for the default location alone. As named
 * (prepared) statements, or, with `prepared` false, parsed and planned by the
 * server every time. test/same-sql.test.ts holds this to what the service
 * sends.
 */
export function pgQueries(pool: pg.Pool, prepared = true): Handlers {
  const sql = productStatements('postgresql');
  const query = (statement: PreparedStatement, values: readonly unknown[]) =>
    prepared
      ? { name: statement.name, text: statement.numbered, values: [...values] }
      : { text: statement.numbered, values: [...values] };
  const rowsOn =
    (client: pg.Pool | pg.PoolClient) =>
    async <R extends pg.QueryResultRow = Row>(statement: PreparedStatement, values: readonly unknown[]) =>
      (await client.query<R>(query(statement, values))).rows;
  const rows = rowsOn(pool);
  const first = async (statement: PreparedStatement, values: readonly unknown[]) => (await rows(statement, values))[0];
  const inTransaction = async <T>(work: (on: ReturnType<typeof rowsOn>) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const result = await work(rowsOn(client));
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
  };
  /** Locks the product and reads its levels, as ProductStockRepository.lock does. */
  const lock = async (on: ReturnType<typeof rowsOn>, id: number) => {
    const [product] = await on(sql.lock, [id]);
    if (!product) return undefined;
    const levels = await on<LevelRow>(LEVEL_STATEMENTS.ofProduct, [id]);
    return { product, levels };
  };
  /** SAVE_STOCK's arrays for one change of on hand at the default location of a product stocked there alone. */
  const save = (product: Row, kind: 'adjusted' | 'updated', delta: number) => {
    const quantity = product.quantity_in_stock + delta;
    const sequence = Number(product.movement_sequence) + 1;
    const movement = movementValues(product.id, DEFAULT_LOCATION, kind, {
      delta,
      quantityAfter: quantity,
      reservedAfter: product.reserved_quantity,
      sequence,
    });
    return [
      ...[product.id, product.version, product.version + 1, quantity, product.reserved_quantity],
      ...[product.backordered_quantity, product.low_stock_alert, sequence],
      ...[product.id, DEFAULT_LOCATION, delta, 0, 0, false],
      ...movement,
    ].map((value) => [value]);
  };
  const details = (body: BodyProduct) => [body.name, body.description, body.price.toFixed(2)];
  const context = () => {
    const { reason, requestId, actor, traceId, at } = requestContext();
    return [reason, requestId, actor, traceId, at];
  };
  return {
    getOne: async (id) => {
      const row = await first(sql.findById, [id]);
      return row && stored(row);
    },
    page: async (after, limit) => (await rows(sql.list(), [after, limit])).map(stored),
    create: async (body) => {
      const q = body.quantityInStock;
      const { reason, requestId, actor, traceId, at } = requestContext();
      const product = [...details(body), q, 0, 0, null, 1];
      const level = [DEFAULT_LOCATION, q];
      const opening = [
        DEFAULT_LOCATION,
        null,
        'created',
        q,
        0,
        0,
        0,
        0,
        q,
        0,
        'created',
        reason,
        null,
        requestId,
        actor,
        traceId,
        1,
        at,
      ];
      return stored((await first(ADD_PRODUCT, [...product, ...level, ...opening]))!);
    },
    update: async (id, body) => {
      const atOnce = await first(REPLACE_AT_ONCE.unversioned, [
        ...[id, body.quantityInStock, null, HYSTERESIS, ...details(body), null],
        ...context(),
      ]);
      if (atOnce) return stored(atOnce);
      return inTransaction(async (on) => {
        const locked = await lock(on, id);
        if (!locked) return undefined;
        const delta = body.quantityInStock - locked.product.quantity_in_stock;
        const held = locked.levels.find((level) => level.location_id === DEFAULT_LOCATION)?.reserved ?? 0;
        const elsewhere = locked.levels.some(
          (l) => l.location_id !== DEFAULT_LOCATION && (l.on_hand > 0 || l.reserved > 0 || l.incoming > 0),
        );
        if (delta !== 0 && (elsewhere || body.quantityInStock < held)) return 'refused' as const;
        // updateDetails with the settings and SKU the product has (the use case keeps what the body leaves out), and
        // the id closing the refused row's read.
        const { backorder_limit, low_stock_threshold, sku } = locked.product;
        const [updated] = await on(sql.updateDetails(false), [
          ...[...details(body), backorder_limit, low_stock_threshold, 0, sku, id, id],
        ]);
        if (delta === 0) return stored(updated!);
        const saving = { ...updated!, movement_sequence: locked.product.movement_sequence };
        await on(SAVE_STOCK, save(saving, 'updated', delta));
        return stored({ ...updated!, quantity_in_stock: body.quantityInStock, version: updated!.version + 1 });
      });
    },
    adjust: async (id, delta) => {
      const atOnce = await first(ADJUST_AT_ONCE, [id, DEFAULT_LOCATION, delta, HYSTERESIS, 'correction', ...context()]);
      if (atOnce) return stored(atOnce);
      return inTransaction(async (on) => {
        const locked = await lock(on, id);
        if (!locked) return undefined;
        const level = locked.levels.find((l) => l.location_id === DEFAULT_LOCATION);
        const [onHand, held] = [level?.on_hand ?? 0, level?.reserved ?? 0];
        if (onHand + delta < held || locked.product.quantity_in_stock + delta > 2147483647) return 'refused' as const;
        await on(SAVE_STOCK, save(locked.product, 'adjusted', delta));
        const { quantity_in_stock: quantity, version } = locked.product;
        return stored({ ...locked.product, quantity_in_stock: quantity + delta, version: version + 1 });
      });
    },
  };
}

export function pgPool(): pg.Pool {
  return new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) });
}
