import pg from 'pg';
import type { BodyProduct } from './raw-http';

const COLUMNS = '"id", "name", "description", "price", "quantity_in_stock", "version"';

interface Row {
  id: number;
  name: string;
  description: string;
  price: string;
  quantity_in_stock: number;
  version: number;
}

const json = (row: Row) => ({ id: row.id, name: row.name, description: row.description, price: Number(row.price), quantityInStock: row.quantity_in_stock });

/**
 * The service's own statements on the service's own schema, on a plain pg
 * pool: as named (prepared) statements, or, with `prepared` false, parsed and
 * planned by the server every time, as the service's (MikroORM's) are.
 */
export function pgQueries(pool: pg.Pool, prepared = true) {
  const query = (config: { name: string; text: string; values: unknown[] }) => pool.query<Row>(prepared ? config : { text: config.text, values: config.values });
  const one = async (name: string, text: string, values: unknown[]) => (await query({ name, text, values })).rows[0];
  return {
    getOne: async (id: number) => {
      const row = await one('get', `select ${COLUMNS} from "product" where "id" = $1`, [id]);
      return row && json(row);
    },
    page: async (after: number, limit: number) =>
      (await query({ name: 'page', text: `select ${COLUMNS} from "product" where "id" > $1 order by "id" limit $2`, values: [after, limit] })).rows.map(json),
    create: async (body: BodyProduct) => {
      const row = (await one('create', `insert into "product" ("name", "description", "price", "quantity_in_stock", "version") values ($1, $2, $3, $4, 1) returning ${COLUMNS}`, [
        body.name,
        body.description,
        body.price.toFixed(2),
        body.quantityInStock,
      ]))!;
      return { id: row.id, json: json(row) };
    },
    update: async (id: number, body: BodyProduct) => {
      const row = await one(
        'update',
        `update "product" set "name" = $2, "description" = $3, "price" = $4, "quantity_in_stock" = $5, "version" = "version" + 1 where "id" = $1 returning ${COLUMNS}`,
        [id, body.name, body.description, body.price.toFixed(2), body.quantityInStock],
      );
      return row && json(row);
    },
    adjust: async (id: number, delta: number) => {
      const row = await one(
        'adjust',
        `update "product" set "quantity_in_stock" = "quantity_in_stock" + $2, "version" = "version" + 1 where "id" = $1 and "quantity_in_stock"::bigint + $2 between 0 and 2147483647 returning ${COLUMNS}`,
        [id, delta],
      );
      if (row) return json(row);
      return (await one('exists', 'select 1 as "id" from "product" where "id" = $1', [id])) ? ('refused' as const) : undefined;
    },
  };
}

export function pgPool(): pg.Pool {
  return new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) });
}
