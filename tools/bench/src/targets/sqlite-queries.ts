import Database from 'better-sqlite3';
import {
  MOVEMENT_STATEMENTS,
  productStatements,
  SQLITE_ADD_PRODUCT,
  SQLITE_LOCK,
  SQLITE_SAVE,
} from '@stock/persistence-sql';
import { movementValues, requestContext } from './movement-context';
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
  movement_sequence?: number;
  low_stock_alert?: number;
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
  price: row.price_cents / 100,
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
 * The service's own statements (its repositories', imported, so they cannot
 * drift) with the parameters it sends, each compiled once and run as the
 * service runs them (`all` for a statement that answers rows, `run`
 * otherwise): a GET and a page outside any transaction; a POST (the product,
 * its level, its opening movement), a PUT and an adjustment (the product with
 * its levels, then the product's row, the level's change and the movement) between BEGIN
 * and COMMIT. A change moves the default location's level, which every
 * product has. test/same-sql.test.ts holds this to what the service sends.
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
  const insert = compiled(SQLITE_ADD_PRODUCT);
  const createLevel = compiled(SQLITE_SAVE.createLevel);
  const appendMovement = compiled(MOVEMENT_STATEMENTS.append);
  const lock = compiled<Row & LevelRow & { reserved_at: number }>(SQLITE_LOCK);
  const updateDetails = compiled(sql.updateDetails(false));
  const saveProduct = compiled(SQLITE_SAVE.product);
  const moveLevel = compiled(SQLITE_SAVE.moveLevel);
  /** Saves one change of on hand at the default location, as ProductStockRepository.save writes it. */
  const change = (product: Row, kind: 'adjusted' | 'updated', delta: number) => {
    const quantity = product.quantity_in_stock + delta;
    const sequence = Number(product.movement_sequence) + 1;
    const version = product.version + 1;
    const { reserved_quantity: reserved, backordered_quantity: backordered } = product;
    saveProduct(
      quantity,
      reserved,
      Number(product.committed_quantity ?? 0),
      Number(product.quality_control_quantity ?? 0),
      Number(product.damaged_quantity ?? 0),
      backordered,
      product.low_stock_alert,
      sequence,
      version,
      product.id,
      product.version,
    );
    moveLevel(delta, 0, 0, 0, 0, 0, product.id, DEFAULT_LOCATION);
    const movement = { delta, quantityAfter: quantity, reservedAfter: reserved, sequence };
    const values = movementValues(product.id, DEFAULT_LOCATION, kind, movement);
    // better-sqlite3 binds no Date: the service's connection binds a time as epoch milliseconds.
    appendMovement(...values.slice(0, -1), values[18].getTime());
    return stored({ ...product, quantity_in_stock: quantity, version });
  };
  /** The product and its levels in one read, as ProductStockRepository.lock reads them on SQLite. */
  const locked = (id: number) => {
    const rows = lock(id);
    const levels = rows.map(({ location_id, on_hand, reserved_at, incoming }) => ({
      location_id,
      on_hand,
      reserved: reserved_at,
      incoming,
    }));
    return rows[0] && { product: rows[0], levels };
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
        const q = body.quantityInStock;
        const row = insert(...details(body), q, 0, 0, null, 1)[0]!;
        createLevel(row.id, DEFAULT_LOCATION, q, 0, 0, 0, 0, 0);
        const { reason, requestId, actor, traceId, at } = requestContext();
        appendMovement(
          row.id,
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
          +at,
        );
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
        if (delta === 0) return stored(updated);
        const product = { ...updated, movement_sequence: stock.product.movement_sequence };
        return change(product, 'updated', delta);
      }),
    adjust: (id, delta) =>
      inTransaction(() => {
        const stock = locked(id);
        if (!stock) return undefined;
        const level = stock.levels.find((l) => l.location_id === DEFAULT_LOCATION);
        const [onHand, held] = [level?.on_hand ?? 0, level?.reserved ?? 0];
        if (onHand + delta < held || stock.product.quantity_in_stock + delta > 2147483647) return 'refused' as const;
        return change(stock.product, 'adjusted', delta);
      }),
  };
}
