import { type ProductStatements, productStatements } from '@stock/persistence-mikro-orm';
import pg from 'pg';
import { movementContext } from './movement-context';
import type { BodyProduct, Handlers, StoredProduct } from './raw-http';

type PreparedStatement = ProductStatements['findById'];

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
});

/** The default location's id (DEFAULT_LOCATION_ID), where a client that names no location keeps its stock. */
const DEFAULT_LOCATION = 1;

/**
 * The service's own statements (the product and level repositories', imported,
 * so they cannot drift) with the parameters it sends, on a plain pg pool, as
 * the service sends them: a GET, a page and a POST one statement each without
 * BEGIN/COMMIT; a PUT and an adjustment too, as the one statement that makes a
 * plain change at once (adjustAtOnce, replaceAtOnce: the bench's products have
 * stock at the default location alone, no threshold and no backorders), and
 * only when it answers nothing, a transaction that locks the product, reads
 * its levels, and writes the change at the default location (the level and
 * the product's totals in one statement), the PUT its details too. The rules
 * there are the domain's (planAdjustment, planStockReplacement) for the
 * default location alone. As named
 * (prepared) statements, or, with `prepared` false, parsed and planned by the
 * server every time. test/same-sql.test.ts holds this to what the service
 * sends.
 */
export function pgQueries(pool: pg.Pool, prepared = true): Handlers {
  const sql = productStatements('postgresql');
  const query = (statement: PreparedStatement, values: unknown[]) =>
    prepared ? { name: statement.name, text: statement.numbered, values } : { text: statement.numbered, values };
  const rowsOn =
    (client: pg.Pool | pg.PoolClient) =>
    async <R extends pg.QueryResultRow = Row>(statement: PreparedStatement, values: unknown[]) =>
      (await client.query<R>(query(statement, values))).rows;
  const rows = rowsOn(pool);
  const first = async (statement: PreparedStatement, values: unknown[]) => (await rows(statement, values))[0];
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
  /** Locks the product and reads its level at the default location, as StockLevelRepository.lock does. */
  /** The settings and SKU a PUT that leaves them out keeps: the product's own (the SKU's keep flag 0, its value). */
  const kept = (product: Row) => [product.backorder_limit, product.low_stock_threshold, 0, product.sku];
  const lock = async (on: ReturnType<typeof rowsOn>, id: number) => {
    const [product] = await on(sql.lock, [id]);
    if (!product) return undefined;
    const levels = await on<LevelRow>(sql.levels, [id]);
    return { product, levels };
  };
  /** One change of on hand at the default location, and the product's totals with it: applyLevel's parameters. */
  const change = (id: number, kind: 'adjusted' | 'updated', delta: number) => [
    id,
    DEFAULT_LOCATION,
    delta,
    0,
    0,
    delta,
    0,
    0,
    null,
    movementContext({ kind, locationId: DEFAULT_LOCATION }),
    1,
    id,
    delta,
    0,
  ];
  const details = (body: BodyProduct) => [body.name, body.description, body.price.toFixed(2)];
  /** LOW_STOCK_HYSTERESIS as the service has it by default. */
  const hysteresis = 1;
  /** A PUT made at once: the details, no threshold or limit (unchanged), the new stock at the default location. */
  const replaceAtOnce = (id: number, body: BodyProduct) => [
    id,
    body.quantityInStock,
    null,
    hysteresis,
    ...details(body),
    null,
    movementContext({ kind: 'updated', locationId: DEFAULT_LOCATION }),
  ];
  const adjustAtOnce = (id: number, delta: number) => [
    id,
    DEFAULT_LOCATION,
    delta,
    hysteresis,
    movementContext({ kind: 'adjusted', locationId: DEFAULT_LOCATION }),
  ];
  return {
    getOne: async (id) => {
      const row = await first(sql.findById, [id]);
      return row && stored(row);
    },
    page: async (after, limit) => (await rows(sql.list(), [after, limit])).map(stored),
    create: async (body) =>
      stored(
        (await first(sql.insert, [...details(body), body.quantityInStock, 0, 0, null, movementContext('created')]))!,
      ),
    update: async (id, body) => {
      const atOnce = await first(sql.replaceAtOnce(false)!, replaceAtOnce(id, body));
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
        const [updated] = await on(sql.updateDetails(false), [...details(body), ...kept(locked.product), id, id]);
        if (delta === 0) return stored(updated!);
        return stored((await on(sql.applyLevel, change(id, 'updated', delta)))[0]!);
      });
    },
    adjust: async (id, delta) => {
      const atOnce = await first(sql.adjustAtOnce!, adjustAtOnce(id, delta));
      if (atOnce) return stored(atOnce);
      return inTransaction(async (on) => {
        const locked = await lock(on, id);
        if (!locked) return undefined;
        const level = locked.levels.find((l) => l.location_id === DEFAULT_LOCATION);
        const [onHand, held] = [level?.on_hand ?? 0, level?.reserved ?? 0];
        if (onHand + delta < held || locked.product.quantity_in_stock + delta > 2147483647) return 'refused' as const;
        return stored((await on(sql.applyLevel, change(id, 'adjusted', delta)))[0]!);
      });
    },
  };
}

export function pgPool(): pg.Pool {
  return new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) });
}
