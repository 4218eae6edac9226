import Database from 'better-sqlite3';
import { productStatements } from '@stock/persistence-mikro-orm';
import { movementContext } from './movement-context';
import type { BodyProduct, Handlers, StoredProduct } from './raw-http';

interface Row {
  id: number;
  name: string;
  description: string;
  price_cents: number;
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
  price: row.price_cents / 100,
  quantityInStock: row.quantity_in_stock,
  reservedQuantity: row.reserved_quantity,
  backorderLimit: row.backorder_limit,
  backorderedQuantity: row.backordered_quantity,
  lowStockThreshold: row.low_stock_threshold,
  version: row.version,
});

/** The service's default statement timeout, which is its busy timeout on SQLite. */
const BUSY_TIMEOUT_MS = 5000;

/** The default location's id (DEFAULT_LOCATION_ID). */
const DEFAULT_LOCATION = 1;

/** The file opened as the service opens it: the same busy timeout, WAL and synchronous setting. */
export function openSqlite(url: string): Database.Database {
  const db = new Database(url.replace(/^sqlite:/, ''), { timeout: BUSY_TIMEOUT_MS });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = wal');
  db.pragma('synchronous = normal');
  return db;
}

/**
 * The service's own statements (the product and level repositories',
 * imported, so they cannot drift) with the parameters it sends, each compiled
 * once and run as the service runs them (`all` for a statement that answers
 * rows, `run` otherwise): a GET and a page outside any transaction; a POST
 * (the product, then its level), a PUT and an adjustment (lock, levels, then
 * the level's change and the product's totals) between BEGIN and COMMIT. A
 * change updates the default location's level, which every product has, so
 * `createLevel` is never sent. test/same-sql.test.ts holds this to what the
 * service sends.
 */
export function sqliteQueries(db: Database.Database): Handlers {
  const sql = productStatements('sqlite');
  const compiled = <R = Row>(statement: { readonly sql: string }) => {
    const prepared = db.prepare<unknown[], R>(statement.sql);
    return (...values: unknown[]): R[] => (prepared.reader ? prepared.all(...values) : (prepared.run(...values), []));
  };
  const [begin, commit, rollback] = ['begin', 'commit', 'rollback'].map((text) => compiled({ sql: text }));
  const inTransaction = <T>(work: () => T): T => {
    begin!();
    try {
      const result = work();
      commit!();
      return result;
    } catch (error) {
      rollback!();
      throw error;
    }
  };
  const findById = compiled(sql.findById);
  const list = compiled(sql.list());
  const insert = compiled(sql.insert);
  const insertLevel = compiled(sql.insertLevel!);
  const lock = compiled(sql.lock);
  const levels = compiled<LevelRow>(sql.levels);
  const updateDetails = compiled(sql.updateDetails(false));
  const applyLevel = compiled(sql.applyLevel);
  const applyTotals = compiled(sql.applyTotals);
  /** One change of on hand at the default location: the level's update, then the product's totals. */
  const change = (id: number, kind: 'adjusted' | 'updated', delta: number) => {
    applyLevel(id, DEFAULT_LOCATION, delta, 0, 0);
    const context = movementContext({ kind, locationId: DEFAULT_LOCATION });
    return stored(applyTotals(delta, 0, 0, null, context, 1, id, delta, 0)[0]!);
  };
  const locked = (id: number) => {
    const [product] = lock(id);
    return product && { product, levels: levels(id) };
  };
  const details = (body: BodyProduct) => [body.name, body.description, Math.round(body.price * 100)];
  return {
    getOne: (id) => {
      const [row] = findById(id);
      return row && stored(row);
    },
    page: (after, limit) => list(after, limit).map(stored),
    create: (body) =>
      inTransaction(() => {
        const row = insert(...details(body), body.quantityInStock, 0, 0, null, movementContext('created'))[0]!;
        insertLevel(row.id, row.quantity_in_stock);
        return stored(row);
      }),
    update: (id, body) =>
      inTransaction(() => {
        const stock = locked(id);
        if (!stock) return undefined;
        const delta = body.quantityInStock - stock.product.quantity_in_stock;
        const held = stock.levels.find((level) => level.location_id === DEFAULT_LOCATION)?.reserved ?? 0;
        const elsewhere = stock.levels.some(
          (l) => l.location_id !== DEFAULT_LOCATION && (l.on_hand > 0 || l.reserved > 0 || l.incoming > 0),
        );
        if (delta !== 0 && (elsewhere || body.quantityInStock < held)) return 'refused' as const;
        // The settings and SKU the product has (the use case keeps what the body leaves out; the SKU's keep flag 0).
        const { backorder_limit, low_stock_threshold, sku } = stock.product;
        const updated = updateDetails(...details(body), backorder_limit, low_stock_threshold, 0, sku, id)[0]!;
        return delta === 0 ? stored(updated) : change(id, 'updated', delta);
      }),
    adjust: (id, delta) =>
      inTransaction(() => {
        const stock = locked(id);
        if (!stock) return undefined;
        const level = stock.levels.find((l) => l.location_id === DEFAULT_LOCATION);
        const [onHand, held] = [level?.on_hand ?? 0, level?.reserved ?? 0];
        if (onHand + delta < held || stock.product.quantity_in_stock + delta > 2147483647) return 'refused' as const;
        return change(id, 'adjusted', delta);
      }),
  };
}
