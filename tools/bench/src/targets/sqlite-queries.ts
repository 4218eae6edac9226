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
  version: number;
}

const stored = (row: Row): StoredProduct => ({
  id: row.id,
  name: row.name,
  description: row.description,
  price: row.price_cents / 100,
  quantityInStock: row.quantity_in_stock,
  reservedQuantity: row.reserved_quantity,
  version: row.version,
});

/** The service's default statement timeout, which is its busy timeout on SQLite. */
const BUSY_TIMEOUT_MS = 5000;

/** The file opened as the service opens it: the same busy timeout, WAL and synchronous setting. */
export function openSqlite(url: string): Database.Database {
  const db = new Database(url.replace(/^sqlite:/, ''), { timeout: BUSY_TIMEOUT_MS });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = wal');
  db.pragma('synchronous = normal');
  return db;
}

/**
 * The service's own statements (the product repository's, imported, so they
 * cannot drift) with the parameters it sends, each compiled once and run with
 * `all` as the service runs them, outside any transaction as the service runs
 * them. A conditional write answers its row when it wrote; otherwise the row
 * is read after it, to tell a missing product from a refused write, as the
 * service does. test/same-sql.test.ts holds this to what the service sends.
 */
export function sqliteQueries(db: Database.Database): Handlers {
  const sql = productStatements('sqlite');
  const compiled = (statement: { readonly sql: string }) => {
    const prepared = db.prepare<unknown[], Row>(statement.sql);
    return (...values: unknown[]) => prepared.all(...values);
  };
  const findById = compiled(sql.findById);
  const list = compiled(sql.list);
  const insert = compiled(sql.insert);
  const update = compiled(sql.update(false));
  const adjust = compiled(sql.adjust);
  const details = (body: BodyProduct) => [
    body.name,
    body.description,
    Math.round(body.price * 100),
    body.quantityInStock,
  ];
  const outcome = (written: Row | undefined, id: number) => {
    if (written) return stored(written);
    return findById(id).length > 0 ? ('refused' as const) : undefined;
  };
  return {
    getOne: (id) => {
      const [row] = findById(id);
      return row && stored(row);
    },
    page: (after, limit) => list(after, limit).map(stored),
    create: (body) => stored(insert(...details(body), movementContext('created'))[0]!),
    update: (id, body) =>
      outcome(update(...details(body), movementContext('updated'), id, body.quantityInStock)[0], id),
    adjust: (id, delta) => outcome(adjust(delta, movementContext('adjusted'), id, delta)[0], id),
  };
}
