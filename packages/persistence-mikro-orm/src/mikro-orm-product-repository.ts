import type { MikroORM } from '@mikro-orm/core';
import {
  type AdjustOutcome,
  Product,
  type ProductDetails,
  type ProductPageQuery,
  type ProductRepository,
  STOCK_MAX,
  STOCK_MIN,
  type UpdateOutcome,
  validateProductDetails,
} from '@stock/domain';
import { type Dialect, MONEY_COLUMN } from './product-schema';
import { type Row, type SqlRunner, sqlRunner } from './sql-runner';

/** How often a refused adjustment is retried when the stock changed between the refusal and the look at why. */
const ADJUST_ATTEMPTS = 100;

/**
 * Every operation is one prepared SQL statement on the ORM's pool (and its
 * transaction, inside one): no read before a write, no unit-of-work flush, no
 * entity hydration where a Product is all that is needed. Writes are
 * conditional statements, so nothing is half-written and no concurrent writer
 * is lost; failure paths read afterwards, only to say why.
 */
export class MikroOrmProductRepository implements ProductRepository {
  private readonly money: (typeof MONEY_COLUMN)[Dialect];
  private readonly columns: string;
  private readonly sql: SqlRunner;

  constructor(
    private readonly orm: MikroORM,
    dialect: Dialect,
  ) {
    this.sql = sqlRunner(orm, dialect);
    this.money = MONEY_COLUMN[dialect];
    this.columns = `"id", "name", "description", "${this.money.name}", "quantity_in_stock", "version"`;
  }

  private query(sql: string, params: unknown[]): Promise<Row[]> {
    return this.sql.all(sql, params);
  }

  private toProduct(row: Row): Product {
    const price = this.money.type.convertToJSValue(row[this.money.name] as string & number, this.orm.em.getPlatform());
    return Product.restore(
      Number(row.id),
      { name: String(row.name), description: String(row.description), price, quantityInStock: Number(row.quantity_in_stock) },
      Number(row.version),
    );
  }

  private priceParameter(details: ProductDetails): unknown {
    return this.money.type.convertToDatabaseValue(details.price, this.orm.em.getPlatform());
  }

  async add(details: ProductDetails): Promise<Product> {
    const valid = validateProductDetails(details);
    const [row] = await this.query(
      `insert into "product" ("name", "description", "${this.money.name}", "quantity_in_stock", "version") values (?, ?, ?, ?, 1) returning "id"`,
      [valid.name, valid.description, this.priceParameter(valid), valid.quantityInStock],
    );
    return Product.of(Number(row!.id), valid, 1);
  }

  async findById(id: number): Promise<Product | undefined> {
    const [row] = await this.query(`select ${this.columns} from "product" where "id" = ?`, [id]);
    return row && this.toProduct(row);
  }

  async list({ after, limit }: ProductPageQuery): Promise<Product[]> {
    const rows = await this.query(`select ${this.columns} from "product" where "id" > ? order by "id" limit ?`, [after, limit]);
    return rows.map((row) => this.toProduct(row));
  }

  async update(id: number, details: ProductDetails, expectedVersion?: number): Promise<UpdateOutcome> {
    const valid = validateProductDetails(details);
    const condition = expectedVersion === undefined ? '' : ' and "version" = ?';
    const [row] = await this.query(
      `update "product" set "name" = ?, "description" = ?, "${this.money.name}" = ?, "quantity_in_stock" = ?, "version" = "version" + 1
       where "id" = ?${condition} returning ${this.columns}`,
      [valid.name, valid.description, this.priceParameter(valid), valid.quantityInStock, id, ...(expectedVersion === undefined ? [] : [expectedVersion])],
    );
    if (row) return { status: 'updated', product: this.toProduct(row) };
    const current = await this.current(id);
    return current ? { status: 'version-mismatch', currentVersion: Number(current.version) } : { status: 'not-found' };
  }

  async adjustStock(id: number, delta: number): Promise<AdjustOutcome> {
    for (let attempt = 0; attempt < ADJUST_ATTEMPTS; attempt++) {
      // One conditional statement: the bound check and the write happen together, under the row's lock.
      // bigint: on PostgreSQL an int4 sum past 2147483647 would be an error, not a refusal.
      const [row] = await this.query(
        `update "product" set "quantity_in_stock" = "quantity_in_stock" + ?, "version" = "version" + 1
         where "id" = ? and cast("quantity_in_stock" as bigint) + ? between ? and ? returning ${this.columns}`,
        [delta, id, delta, STOCK_MIN, STOCK_MAX],
      );
      if (row) return { status: 'adjusted', product: this.toProduct(row) };
      const current = await this.current(id);
      if (!current) return { status: 'not-found' };
      const available = Number(current.quantity_in_stock);
      const next = available + delta;
      if (next < STOCK_MIN || next > STOCK_MAX) return { status: 'out-of-bounds', available };
      // Another writer moved the stock between the refusal and this look: the adjustment may fit now.
    }
    throw new Error(`Stock of product ${id} kept changing under ${ADJUST_ATTEMPTS} attempts to adjust it by ${delta}.`);
  }

  async remove(id: number): Promise<boolean> {
    return (await this.sql.run('delete from "product" where "id" = ?', [id])) > 0;
  }

  private async current(id: number): Promise<Row | undefined> {
    const [row] = await this.query('select "version", "quantity_in_stock" from "product" where "id" = ?', [id]);
    return row;
  }
}
