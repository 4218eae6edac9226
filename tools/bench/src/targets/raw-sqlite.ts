import Database from 'better-sqlite3';
import { listen, rawServer } from './raw-http';

/** node:http + better-sqlite3 with prepared statements, on the service's own SQLite schema. */
const db = new Database(process.env.DATABASE_URL!.replace(/^sqlite:/, ''));
db.pragma('journal_mode = wal');
db.pragma('busy_timeout = 5000');

interface Row {
  id: number;
  name: string;
  description: string;
  price_cents: number;
  quantity_in_stock: number;
}
const COLUMNS = '"id", "name", "description", "price_cents", "quantity_in_stock"';
const json = (row: Row) => ({ id: row.id, name: row.name, description: row.description, price: row.price_cents / 100, quantityInStock: row.quantity_in_stock });

const get = db.prepare<[number], Row>(`select ${COLUMNS} from "product" where "id" = ?`);
const page = db.prepare<[number, number], Row>(`select ${COLUMNS} from "product" where "id" > ? order by "id" limit ?`);
const insert = db.prepare<[string, string, number, number], Row>(`insert into "product" ("name", "description", "price_cents", "quantity_in_stock", "version") values (?, ?, ?, ?, 1) returning ${COLUMNS}`);
const update = db.prepare<[string, string, number, number, number], Row>(
  `update "product" set "name" = ?, "description" = ?, "price_cents" = ?, "quantity_in_stock" = ?, "version" = "version" + 1 where "id" = ? returning ${COLUMNS}`,
);
const adjust = db.prepare<[number, number, number], Row>(
  `update "product" set "quantity_in_stock" = "quantity_in_stock" + ?, "version" = "version" + 1 where "id" = ? and "quantity_in_stock" + ? between 0 and 2147483647 returning ${COLUMNS}`,
);

listen(
  rawServer({
    getOne: (id) => {
      const row = get.get(id);
      return row && json(row);
    },
    page: (after, limit) => page.all(after, limit).map(json),
    create: (body) => {
      const row = insert.get(body.name, body.description, Math.round(body.price * 100), body.quantityInStock)!;
      return { id: row.id, json: json(row) };
    },
    update: (id, body) => {
      const row = update.get(body.name, body.description, Math.round(body.price * 100), body.quantityInStock, id);
      return row && json(row);
    },
    adjust: (id, delta) => {
      const row = adjust.get(delta, id, delta);
      if (row) return json(row);
      return get.get(id) ? 'refused' : undefined;
    },
  }),
);
