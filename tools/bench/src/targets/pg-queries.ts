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
  version: number;
  /** Conditional writes only: false when the condition refused the write and the row is the one as it stands. */
  written?: boolean;
}

const stored = (row: Row): StoredProduct => ({
  id: row.id,
  name: row.name,
  description: row.description,
  price: Number(row.price),
  quantityInStock: row.quantity_in_stock,
  reservedQuantity: row.reserved_quantity,
  version: row.version,
});

/** A conditional write's answer: the row written, 'refused', or undefined when the product is missing. */
const outcome = (row: Row | undefined) =>
  row === undefined ? undefined : row.written ? stored(row) : ('refused' as const);

/**
 * The service's own statements (the product repository's, imported, so they
 * cannot drift) with the parameters it sends, on a plain pg pool, each one a
 * statement of its own without BEGIN/COMMIT, as the service sends them: as
 * named (prepared) statements, or, with `prepared` false, parsed and planned
 * by the server every time. test/same-sql.test.ts holds this to what the
 * service sends.
 */
export function pgQueries(pool: pg.Pool, prepared = true): Handlers {
  const sql = productStatements('postgresql');
  const query = (statement: PreparedStatement, values: unknown[]) =>
    prepared ? { name: statement.name, text: statement.numbered, values } : { text: statement.numbered, values };
  const rows = async (statement: PreparedStatement, values: unknown[]) =>
    (await pool.query<Row>(query(statement, values))).rows;
  const first = async (statement: PreparedStatement, values: unknown[]) => (await rows(statement, values))[0];
  const details = (body: BodyProduct) => [body.name, body.description, body.price.toFixed(2), body.quantityInStock];
  return {
    getOne: async (id) => {
      const row = await first(sql.findById, [id]);
      return row && stored(row);
    },
    page: async (after, limit) => (await rows(sql.list, [after, limit])).map(stored),
    create: async (body) => stored((await first(sql.insert, [...details(body), movementContext('created')]))!),
    // The conditional writes name the product twice: in the write, and in the read of the row a refused write leaves.
    update: async (id, body) => {
      const values = [...details(body), movementContext('updated'), id, body.quantityInStock, id];
      return outcome(await first(sql.update(false), values));
    },
    adjust: async (id, delta) => outcome(await first(sql.adjust, [delta, movementContext('adjusted'), id, delta, id])),
  };
}

export function pgPool(): pg.Pool {
  return new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) });
}
