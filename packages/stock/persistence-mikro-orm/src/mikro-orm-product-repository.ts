import type { Row, SqlSession } from '@platform/mikro-orm';
import { type AdjustOutcome, Product, ProductDetails, type ProductPageQuery, type ProductRepository, STOCK_MAX, STOCK_MIN, type UpdateOutcome } from '@stock/domain';
import { MONEY_COLUMN } from './product-schema';

/** How often an adjustment refused for a bound that turned out to hold (a concurrent writer moved the stock) is tried again. */
const ADJUST_ATTEMPTS = 5;

interface Statements {
  readonly columns: string;
  readonly insert: string;
  readonly findById: string;
  readonly list: string;
  /** Answers `written` true with the new row, `written` false with the current row when refused, no row when missing. */
  update(conditional: boolean): string;
  readonly adjust: string;
  readonly remove: string;
}

/**
 * A conditional write and, when it is refused, the row as it stands, so the
 * caller learns why. On PostgreSQL one statement does both: the write in a
 * data-modifying CTE, the current row read from the same snapshot, so a call is
 * one round trip and needs no transaction around it.
 */
function postgresWrite(write: string, columns: string): string {
  return `with "written" as (${write} returning ${columns})
    select true as "written", ${columns} from "written"
    union all
    select false, ${columns} from "product" where "id" = ? and not exists (select 1 from "written")`;
}

function statements(dialect: 'postgresql' | 'sqlite'): Statements {
  const price = MONEY_COLUMN[dialect].name;
  const columns = `"id", "name", "description", "${price}", "quantity_in_stock", "version"`;
  const updateSql = (conditional: boolean) =>
    `update "product" set "name" = ?, "description" = ?, "${price}" = ?, "quantity_in_stock" = ?, "version" = "version" + 1 where "id" = ?${conditional ? ' and "version" = ?' : ''}`;
  // bigint: on PostgreSQL an int4 sum past 2147483647 would be an error, not a refusal.
  const adjustSql = `update "product" set "quantity_in_stock" = "quantity_in_stock" + ?, "version" = "version" + 1
    where "id" = ? and cast("quantity_in_stock" as bigint) + ? between ${STOCK_MIN} and ${STOCK_MAX}`;
  return {
    columns,
    insert: `insert into "product" ("name", "description", "${price}", "quantity_in_stock", "version") values (?, ?, ?, ?, 1) returning ${columns}`,
    findById: `select ${columns} from "product" where "id" = ?`,
    list: `select ${columns} from "product" where "id" > ? order by "id" limit ?`,
    update: (conditional) => (dialect === 'postgresql' ? postgresWrite(updateSql(conditional), columns) : `${updateSql(conditional)} returning true as "written", ${columns}`),
    adjust: dialect === 'postgresql' ? postgresWrite(adjustSql, columns) : `${adjustSql} returning true as "written", ${columns}`,
    remove: 'delete from "product" where "id" = ?',
  };
}

const cache = new Map<string, Statements>();

/**
 * Products through MikroORM's EntityManager, one statement per call on the
 * session it is handed: a transaction's, or one outside any. Rows map straight
 * to the domain's Product; no entity is hydrated and no identity map grows.
 */
export class MikroOrmProductRepository implements ProductRepository {
  private readonly sql: Statements;
  private readonly money: (typeof MONEY_COLUMN)[keyof typeof MONEY_COLUMN];

  constructor(private readonly session: SqlSession) {
    this.money = MONEY_COLUMN[session.dialect];
    let sql = cache.get(session.dialect);
    if (!sql) cache.set(session.dialect, (sql = statements(session.dialect)));
    this.sql = sql;
  }

  async add(details: ProductDetails): Promise<Product> {
    const [row] = await this.session.all(this.sql.insert, [details.name, details.description, this.price(details), details.quantityInStock]);
    return this.toProduct(row!);
  }

  async findById(id: number): Promise<Product | undefined> {
    const [row] = await this.session.all(this.sql.findById, [id]);
    return row && this.toProduct(row);
  }

  async list({ after, limit }: ProductPageQuery): Promise<Product[]> {
    const rows = await this.session.all(this.sql.list, [after, limit]);
    return rows.map((row) => this.toProduct(row));
  }

  async update(id: number, details: ProductDetails, expectedVersion?: number): Promise<UpdateOutcome> {
    const conditional = expectedVersion !== undefined;
    const params = [details.name, details.description, this.price(details), details.quantityInStock, id, ...(conditional ? [expectedVersion] : [])];
    const row = await this.write(this.sql.update(conditional), params, id);
    if (!row) return { status: 'not-found' };
    return row.written ? { status: 'updated', product: this.toProduct(row) } : { status: 'version-mismatch', currentVersion: Number(row.version) };
  }

  async adjustStock(id: number, delta: number): Promise<AdjustOutcome> {
    for (let attempt = 0; attempt < ADJUST_ATTEMPTS; attempt++) {
      // One conditional statement: the bound check and the write happen together, under the row's lock.
      const row = await this.write(this.sql.adjust, [delta, id, delta], id);
      if (!row) return { status: 'not-found' };
      if (row.written) return { status: 'adjusted', product: this.toProduct(row) };
      const available = Number(row.quantity_in_stock);
      if (available + delta < STOCK_MIN) return { status: 'below-minimum', available };
      if (available + delta > STOCK_MAX) return { status: 'above-maximum', available };
      // Refused, yet the stock read back fits: another writer moved it in between. Try again.
    }
    throw new Error(`Stock of product ${id} kept changing under ${ADJUST_ATTEMPTS} attempts to adjust it by ${delta}.`);
  }

  async remove(id: number): Promise<boolean> {
    return (await this.session.run(this.sql.remove, [id])) > 0;
  }

  /** Runs a conditional write; on SQLite, where it answers no row when refused, reads the current row in the same transaction. */
  private async write(sql: string, params: unknown[], id: number): Promise<Row | undefined> {
    if (this.session.dialect === 'postgresql') return (await this.session.all(sql, [...params, id]))[0];
    const [written] = await this.session.all(sql, params);
    if (written) return written;
    const [current] = await this.session.all(this.sql.findById, [id]);
    return current && { ...current, written: false };
  }

  private price(details: ProductDetails): string | number {
    return this.money.type.convertToDatabaseValue(details.price, this.session.em.getPlatform());
  }

  private toProduct(row: Row): Product {
    const price = this.money.type.convertToJSValue(row[this.money.name] as never, this.session.em.getPlatform());
    const details = ProductDetails.restore({ name: String(row.name), description: String(row.description), price, quantityInStock: Number(row.quantity_in_stock) });
    return Product.of(Number(row.id), details, Number(row.version));
  }
}
